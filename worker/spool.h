#ifndef REGTRACK_WORKER_SPOOL_H
#define REGTRACK_WORKER_SPOOL_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"

/*
 * The spool of unsent uploads: a directory holding one JSON object per file,
 * written before an upload is attempted and removed only after the server
 * acknowledged it, so a result the worker produced survives a crash, a
 * reboot and a server outage (DESIGN.md, "Reliability rules").
 *
 * Durability: spool_put() writes "DIR/.tmp-NAME", fsync()s it, renames it
 * to "DIR/NAME" and fsync()s DIR, so after a crash NAME either holds the
 * whole entry or does not exist. spool_remove() and spool_set_aside() also
 * fsync the directories they change.
 *
 * Names are "<ns since the epoch, 19 digits>-<pid>-<seq>.json", so sorting
 * them by name gives creation order and the oldest entry is sent first.
 *
 * A file that does not hold one JSON object (torn by a crash during a
 * write that bypassed spool_put(), truncated, edited by hand, a leftover
 * ".tmp-*" file) is never deleted: it is moved to DIR/corrupt/ with a
 * warning on stderr and skipped.
 *
 * One process owns a spool: spool_open() takes an exclusive flock on
 * DIR/.lock, so two workers cannot share a work dir. A struct spool is
 * used by one thread at a time.
 */
struct spool {
	char *dir;	   /* new, owned */
	int lock_fd;	   /* -1 when closed */
	unsigned long seq; /* per-process sequence of names */
};

/*
 * Creates DIR (and missing parents, mode 0700) if needed and locks it.
 * Errors: ERR_IO (cannot create or open), ERR_BUSY (another process holds the
 * lock; e->detail the directory).
 */
int spool_open(struct spool *s, const char *dir, struct err *e) __attribute__((warn_unused_result));
/* Unlocks and frees; a closed or zeroed spool is a no-op. */
void spool_close(struct spool *s);

/*
 * Writes `entry` (a JSON object, borrowed) durably as a new file. On
 * success *name (if name is not NULL) is the new file name (new, caller
 * frees with free()). Error ERR_IO (nothing is left behind, e->detail the
 * path) or ERR_INVALID_FIELD (entry is not an object).
 */
int spool_put(struct spool *s, const json_t *entry, char **name, struct err *e)
	__attribute__((warn_unused_result));

/*
 * The names of the entries that hold a JSON object, oldest first. Files
 * that do not are moved to DIR/corrupt/ with a warning (see above).
 * *names is a new array of new strings (caller frees with
 * spool_names_free()); *nr may be 0. Error ERR_IO (cannot read DIR).
 */
int spool_list(struct spool *s, char ***names, size_t *nr, struct err *e)
	__attribute__((warn_unused_result));
void spool_names_free(char **names, size_t nr);

/*
 * Reads one entry. *entry is a new reference (caller json_decref()s it).
 * Errors: ERR_NOT_FOUND (no such file), ERR_TORN (not one JSON object: the file
 * was moved to DIR/corrupt/ with a warning).
 */
int spool_get(struct spool *s, const char *name, json_t **entry, struct err *e)
	__attribute__((warn_unused_result));

/* Deletes an acknowledged entry (and fsyncs DIR). Error ERR_IO; a missing file is not an error. */
int spool_remove(struct spool *s, const char *name, struct err *e)
	__attribute__((warn_unused_result));

/*
 * Moves an entry out of the send queue into DIR/SUBDIR/ (created if
 * needed), e.g. "dropped" for a completion whose lease was lost, "rejected"
 * for one the server refused for good. It is kept for a person to look
 * at, never sent again. `subdir` is one path component. Error ERR_IO
 * (ERR_INVALID_FIELD for a subdir that is not one component).
 */
int spool_set_aside(struct spool *s, const char *name, const char *subdir, struct err *e)
	__attribute__((warn_unused_result));

#endif
