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

/* One freed chunk (of at most SPARE_MAX bytes) kept, zeroed again, for the next
 * arena: `list` makes and frees one per container, and musl's malloc mapped and
 * unmapped a group for each (an mmap, an munmap and fresh pages a container).
 * One thread. */
#define SPARE_MAX (64 * 1024)
static struct chunk *spare;

static struct chunk *chunk_new(size_t size)
{
	struct chunk *c;

	if (spare && spare->size >= size) {
		c = spare;
		spare = NULL;
		return c;
	}
	c = calloc(1, sizeof(*c) + size);
	if (c)
		c->size = size;
	return c;
}

/* Bytes past `used` were never handed out: zeroing the used ones makes it calloc's again. */
static void chunk_free(struct chunk *c)
{
	if (c->size > SPARE_MAX || (spare && spare->size >= c->size)) {
		free(c);
		return;
	}
	free(spare);
	memset(c->data, 0, c->used);
	c->used = 0;
	c->next = NULL;
	spare = c;
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
		chunk_free(c);
	}
}

void *arena_alloc(struct arena *a, size_t size)
{
	void *p = chunk_take(a->cur, size);
	struct chunk *c;

	if (p)
		return p;   /* chunks are calloc'd, or zeroed again when reused (chunk_free) */
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
