#ifndef REGTRACK_KCONFIGDIFF_H
#define REGTRACK_KCONFIGDIFF_H

#include <stddef.h>

#include "buf.h"

/*
 * The difference between two kernel .config files, as the kernel's
 * scripts/diffconfig (Matt Mackall, Tim Bird) computes and prints it. Pure:
 * text in, entries and lines out; no I/O.
 *
 * Reading a .config (diffconfig's readconfig()):
 *   CONFIG_NAME=VALUE          option NAME = VALUE, VALUE verbatim (quotes
 *                              of strings kept, "y", "m", numbers, hex)
 *   # CONFIG_NAME is not set   option NAME = "n"
 *   anything else              ignored (comments, blank lines, section
 *                              headers, "CONFIG_X" without '=')
 * A trailing '\r' is dropped. When a name appears twice the later line
 * wins, as in diffconfig's dictionary. Names are kept without the
 * "CONFIG_" prefix, like diffconfig prints them.
 *
 * The difference (diffconfig's order): every option only in the base,
 * sorted by name; then every option in both with a different value,
 * sorted; then every option only in the head, sorted. Names are compared
 * bytewise (strcmp), the order Python's sort gives for ASCII names. Lines
 * are printed exactly as diffconfig prints them (no "CONFIG_" prefix):
 *
 *     -NAME VALUE              only in base
 *      NAME OLD -> NEW         changed (one leading space)
 *     +NAME VALUE              only in head
 *
 * so "# CONFIG_X is not set" in one file and no X at all in the other
 * is "-X n" / "+X n", not "unchanged".
 */

struct kconfig_opt {
	char *name;  /* without "CONFIG_" */
	char *value; /* "n" for "is not set" */
	size_t line; /* 1-based line of the definition kept (the last one) */
};

/* One parsed .config: options sorted by name, each name once. */
struct kconfig {
	struct kconfig_opt *opts;
	size_t nr, alloc;
};

/* clang-format off */
#define KCONFIG_INIT { NULL, 0, 0 }
/* clang-format on */

/*
 * Parses len bytes of .config text (need not be NUL-terminated; a NUL
 * byte ends a line like '\n') into k, which must be KCONFIG_INIT or
 * released. Never fails (lines it does not know are ignored); k->nr is
 * the number of options found (0 for text that is not a .config).
 * The strings in k are new; kconfig_release() frees them.
 */
void kconfig_parse(struct kconfig *k, const char *text, size_t len);

/* The value of option `name` (without "CONFIG_"), borrowed from k, or NULL. */
const char *kconfig_get(const struct kconfig *k, const char *name);

/* Frees k's storage; k is then KCONFIG_INIT again. */
void kconfig_release(struct kconfig *k);

enum kconfigdiff_op {
	KCONFIGDIFF_REMOVED, /* only in base: old_value set, new_value NULL */
	KCONFIGDIFF_CHANGED, /* both set and different */
	KCONFIGDIFF_ADDED,   /* only in head: old_value NULL, new_value set */
};

struct kconfigdiff_entry {
	enum kconfigdiff_op op;
	const char *name; /* borrowed from the base or head struct kconfig */
	const char *old_value;
	const char *new_value;
};

struct kconfigdiff {
	struct kconfigdiff_entry *entries; /* in diffconfig's order (above) */
	size_t nr, alloc;
	size_t nr_removed, nr_changed, nr_added;
};

/* clang-format off */
#define KCONFIGDIFF_INIT { NULL, 0, 0, 0, 0, 0 }
/* clang-format on */

/*
 * Computes the difference base -> head into d (KCONFIGDIFF_INIT or
 * released). The entries borrow the strings of base and head: keep both
 * alive (and unchanged) while d is used. d->nr == 0 means the two define
 * the same options with the same values. O(n + m) after the sort that
 * kconfig_parse() did.
 */
void kconfigdiff_compute(struct kconfigdiff *d, const struct kconfig *base,
			 const struct kconfig *head);

/*
 * Appends entry e as diffconfig prints it, without the newline
 * ("-NAME n", " NAME a -> b", "+NAME y"). Returns 0, or -1 when out's cap
 * was reached (nothing or part of the line appended).
 */
int kconfigdiff_format_entry(const struct kconfigdiff_entry *e, struct buf *out)
	__attribute__((warn_unused_result));

/* Every entry, one line each ending in '\n': diffconfig's whole output. 0 or -1 as above. */
int kconfigdiff_format(const struct kconfigdiff *d, struct buf *out)
	__attribute__((warn_unused_result));

/* Frees d's entry array (not the strings it borrows); d is then KCONFIGDIFF_INIT. */
void kconfigdiff_release(struct kconfigdiff *d);

#endif
