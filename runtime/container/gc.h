/* gc: undo what a crashed create left behind (a SIGKILLed tinyrun).
 *
 * A half-made container is a state dir under --root without state.json
 * (create writes it last) whose creator is gone: its lock is free (create
 * holds it from the dir's first moment, statedir.c: publish_dir) and the
 * "creator" record's pid is not that process any more (pid + start time).
 * A state dir with state.json is a container (created, running, stopped):
 * gc never touches it, unless that state.json cannot be used (cut short,
 * over CONTAINER_STATE_MAX, not a state: statedir.h's bad_state), which
 * makes no container either: its records say what to clean all the same. A ".new.<pid>.<name>" dir is a create that died
 * before it published its dir.
 *
 * What it removes is a list of cleaners, one per resource, run in order on
 * what the records say (statedir.h): the init process, the cgroups in every
 * hierarchy, the RDT group, ... the state dir last. A resource that gets a
 * record at create gets a cleaner here. */
#ifndef TINYRUN_GC_H
#define TINYRUN_GC_H

#include <stdbool.h>
#include <stdio.h>

#include "oci/error.h"
#include "runtime/container/statedir.h"

/* Every half-made container under root: removed, its id printed to out
 * (NULL: quiet). Returns how many, or a negative errno with err filled. */
int gc_root(const char *root, FILE *out, struct error *err);
/* The one named id, if it is half-made and dead: 1 removed, 0 not (live,
 * busy, a real container), negative errno on error (-ENOENT: nothing by
 * that name, "container ... does not exist"). */
int gc_id(const char *root, const char *id, struct error *err);
/* Clean a half-made container whose lock the caller holds (delete -f). */
void gc_clean_locked(struct container *c);

#endif
