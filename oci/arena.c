#include "arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define ALIGN alignof(max_align_t)

struct chunk {
	struct chunk *next;
	size_t size, used;
	alignas(max_align_t) unsigned char data[];
};

struct arena {
	struct chunk *head;   /* the chunk this struct lives in comes first */
	struct chunk *cur;
	size_t next_size;
};

static struct chunk *chunk_new(size_t size)
{
	struct chunk *c = calloc(1, sizeof(*c) + size);

	if (c)
		c->size = size;
	return c;
}

static void *chunk_take(struct chunk *c, size_t size)
{
	size_t at = (c->used + ALIGN - 1) & ~(ALIGN - 1);

	if (at > c->size || c->size - at < size)
		return NULL;
	c->used = at + size;
	return c->data + at;
}

struct arena *arena_new(size_t hint)
{
	size_t size = hint < 4096 ? 4096 : hint;
	struct chunk *c = chunk_new(size + sizeof(struct arena));
	struct arena *a;

	if (!c)
		return NULL;
	a = chunk_take(c, sizeof(*a));
	a->head = a->cur = c;
	a->next_size = size;
	return a;
}

void arena_free(struct arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {   /* `a` itself is inside head: read it first */
		next = c->next;
		free(c);
	}
}

void *arena_alloc(struct arena *a, size_t size)
{
	void *p = chunk_take(a->cur, size);
	struct chunk *c;

	if (p)
		return p;   /* chunks are calloc'd and never reused: already zero */
	if (size > SIZE_MAX / 4)
		return NULL;
	a->next_size *= 2;
	if (a->next_size < size)
		a->next_size = size;
	c = chunk_new(a->next_size);
	if (!c)
		return NULL;
	a->cur->next = c;
	a->cur = c;
	return chunk_take(c, size);
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void oci_arena_free(void *arena)
{
	arena_free(arena);
}
