#ifndef REGTRACK_MAINTAINERS_H
#define REGTRACK_MAINTAINERS_H

#include <regex.h>
#include <stddef.h>

/*
 * The kernel's MAINTAINERS file as an inbox filter reads it: the F:, N: and
 * X: patterns of named entries, and whether a path is theirs.
 *
 * An entry is a title line ("MEMORY MANAGEMENT") followed at once by field
 * lines ("F:<tab>mm/"); the file's prose before the list (its field lines
 * are indented) is no entry. Patterns as MAINTAINERS describes them: a
 * trailing '/' is every file in and below that directory, '*' and '?'
 * match within one path component (drivers/net/ and a star: the files of that
 * directory, not below), a name without wildcards is that file or, when a
 * directory, everything below it. N: is a regular expression searched for
 * anywhere in the path ("[^a-z]tegra": drivers/clk/tegra/, i2c-tegra.c, not
 * mach-integrator/), as scripts/get_maintainer.pl reads it (its `m/$regex/x`,
 * here a POSIX extended one: the N: lines of MAINTAINERS use no Perl-only
 * syntax); one that does not compile is left out (matches nothing). X: takes
 * paths out of what F: and N: gave. K: (a regex on the patch's text) is not
 * read: an entry with only K: lines matches nothing.
 */
struct maintainers {
	char **f, **x; /* the patterns, new copies (maintainers_release) */
	size_t nf, nx;
	regex_t *nre; /* the N: expressions compiled (REG_EXTENDED | REG_NOSUB) */
	size_t nn;
	size_t found; /* how many of the names asked for were entries */
};

/*
 * Reads text (len bytes, not NUL-terminated) for the entries named in
 * names[0..n) (compared without case) into *out, which the caller releases
 * with maintainers_release() whatever the result. Returns the number of
 * names that were not found (0: all of them; out->found says how many were).
 */
size_t maintainers_read(const char *text, size_t len, const char *const *names, size_t n,
			struct maintainers *out);

/*
 * Whether path (a repository path, no leading '/') matches one of m's F: or N:
 * and none of its X:.
 */
int maintainers_match(const struct maintainers *m, const char *path);

void maintainers_release(struct maintainers *m);

#endif
