/* One allocation arena per parsed document: many small zeroed allocations,
 * one free. Internal to oci/. */
#ifndef TINYRUN_OCI_ARENA_H
#define TINYRUN_OCI_ARENA_H

#include <stddef.h>

struct arena;

/* `hint`: expected total size (the first chunk is sized from it). */
struct arena *arena_new(size_t hint);
void arena_free(struct arena *a);
/* Zeroed, aligned for any type; NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *s);

#endif
