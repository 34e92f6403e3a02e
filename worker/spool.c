#include "worker/spool.h"
#include "fsutil.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX ".tmp-"
#define SUFFIX ".json"

static int fsync_dir(const char *dir, struct err *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return err_setc(e, ERR_IO, dir, "cannot open directory '%s': %s", dir,
				strerror(errno));
	if (fsync(fd)) {
		int saved = errno;

		close(fd);
		return err_setc(e, ERR_IO, dir, "cannot fsync directory '%s': %s", dir,
				strerror(saved));
	}
	close(fd);
	return 0;
}

int spool_open(struct spool *s, const char *dir, struct err *e)
{
	char *lock;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	if (fs_mkdirs(dir, 0700, e))
		return -1;
	lock = xstrfmt("%s/.lock", dir);
	s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lock_fd < 0) {
		err_setc(e, ERR_IO, lock, "cannot open '%s': %s", lock, strerror(errno));
		free(lock);
		return -1;
	}
	free(lock);
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB)) {
		int saved = errno;

		close(s->lock_fd);
		s->lock_fd = -1;
		if (saved == EWOULDBLOCK)
			return err_setc(e, ERR_BUSY, dir, "spool '%s' is in use by another worker",
					dir);
		return err_setc(e, ERR_IO, dir, "cannot lock spool '%s': %s", dir, strerror(saved));
	}
	s->dir = xstrdup(dir);
	return 0;
}

void spool_close(struct spool *s)
{
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* drops the flock */
	s->lock_fd = -1;
	free(s->dir);
	s->dir = NULL;
}

int spool_put(struct spool *s, const json_t *entry, char **name, struct err *e)
{
	struct timespec ts;
	char *base, *tmp, *path, *text;
	int fd, ret = -1;

	if (!json_is_object(entry))
		return err_setc(e, ERR_INVALID_FIELD, "", "spool entry is not a JSON object");
	clock_gettime(CLOCK_REALTIME, &ts);
	base = xstrfmt("%019lld-%ld-%lu" SUFFIX, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
		       (long)getpid(), s->seq++);
	tmp = xstrfmt("%s/" TMP_PREFIX "%s", s->dir, base);
	path = xstrfmt("%s/%s", s->dir, base);
	text = json_dumps(entry, JSON_COMPACT);
	if (!text) {
		err_setc(e, ERR_IO, path, "cannot serialize spool entry");
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err_setc(e, ERR_IO, tmp, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (fs_write_all(fd, text, strlen(text)) || fs_write_all(fd, "\n", 1) || fsync(fd)) {
		err_setc(e, ERR_IO, tmp, "cannot write '%s': %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd)) {
		err_setc(e, ERR_IO, tmp, "cannot close '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		err_setc(e, ERR_IO, path, "cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (fsync_dir(s->dir, e)) {
		/* the entry may or may not survive a crash: keep it, report the error */
		goto out;
	}
	if (name) {
		*name = base;
		base = NULL;
	}
	ret = 0;
out:
	free(text);
	free(base);
	free(tmp);
	free(path);
	return ret;
}

static void warn_aside(struct spool *s, const char *name, const char *why)
{
	struct err e;

	if (spool_set_aside(s, name, "corrupt", &e))
		fprintf(stderr, "warning: spool file '%s/%s' %s and could not be moved aside: %s\n",
			s->dir, name, why, e.message);
	else
		fprintf(stderr, "warning: spool file '%s/%s' %s; moved to '%s/corrupt/%s'\n",
			s->dir, name, why, s->dir, name);
}

/* 0 if DIR/name holds one JSON object (then *out, if not NULL, gets it). */
static int load(struct spool *s, const char *name, json_t **out, char *why, size_t whylen)
{
	char *path = xstrfmt("%s/%s", s->dir, name);
	json_error_t je;
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);

	free(path);
	if (!j) {
		snprintf(why, whylen, "is not valid JSON (%s, line %d)", je.text, je.line);
		return -1;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		snprintf(why, whylen, "does not hold a JSON object");
		return -1;
	}
	if (out)
		*out = j;
	else
		json_decref(j);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int spool_list(struct spool *s, char ***names, size_t *nr, struct err *e)
{
	DIR *d = opendir(s->dir);
	struct dirent *de;
	char **v = NULL, **torn = NULL;
	size_t n = 0, alloc = 0, ntorn = 0, torn_alloc = 0;

	*names = NULL;
	*nr = 0;
	if (!d)
		return err_setc(e, ERR_IO, s->dir, "cannot read spool '%s': %s", s->dir,
				strerror(errno));
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		int is_tmp = !strncmp(nm, TMP_PREFIX, strlen(TMP_PREFIX));
		struct stat st;
		char *path;

		if (!is_tmp && (nm[0] == '.' || !has_suffix(nm, SUFFIX)))
			continue;
		path = xstrfmt("%s/%s", s->dir, nm);
		if (lstat(path, &st) || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		free(path);
		if (is_tmp) {
			/* we hold the lock and spool_put() is synchronous: a crash leftover */
			ALLOC_GROW(torn, ntorn + 1, torn_alloc);
			torn[ntorn++] = xstrdup(nm);
			continue;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = xstrdup(nm);
	}
	closedir(d);
	for (size_t i = 0; i < ntorn; i++) {
		warn_aside(s, torn[i], "is an unfinished write");
		free(torn[i]);
	}
	free(torn);
	/* validate; renaming while iterating the directory is avoided above */
	for (size_t i = 0; i < n;) {
		char why[300];

		if (!load(s, v[i], NULL, why, sizeof(why))) {
			i++;
			continue;
		}
		warn_aside(s, v[i], why);
		free(v[i]);
		memmove(v + i, v + i + 1, (n - i - 1) * sizeof(*v));
		n--;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	*nr = n;
	return 0;
}

void spool_names_free(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

int spool_get(struct spool *s, const char *name, json_t **entry, struct err *e)
{
	char *path = xstrfmt("%s/%s", s->dir, name);
	char why[300];
	int exists = !access(path, F_OK);

	free(path);
	*entry = NULL;
	if (!exists)
		return err_setc(e, ERR_NOT_FOUND, name, "no spool entry '%s'", name);
	if (load(s, name, entry, why, sizeof(why))) {
		warn_aside(s, name, why);
		return err_setc(e, ERR_TORN, name, "spool entry '%s' %s", name, why);
	}
	return 0;
}

int spool_remove(struct spool *s, const char *name, struct err *e)
{
	char *path = xstrfmt("%s/%s", s->dir, name);

	if (unlink(path) && errno != ENOENT) {
		err_setc(e, ERR_IO, path, "cannot remove '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return fsync_dir(s->dir, e);
}

int spool_set_aside(struct spool *s, const char *name, const char *subdir, struct err *e)
{
	char *dir = xstrfmt("%s/%s", s->dir, subdir);
	char *from = xstrfmt("%s/%s", s->dir, name);
	char *to = xstrfmt("%s/%s", dir, name);
	int ret = -1;

	if (strchr(subdir, '/') || !*subdir || !strcmp(subdir, ".") || !strcmp(subdir, "..")) {
		err_setc(e, ERR_INVALID_FIELD, subdir, "bad spool subdirectory '%s'", subdir);
		goto out;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		err_setc(e, ERR_IO, dir, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (rename(from, to)) {
		err_setc(e, ERR_IO, from, "cannot move '%s' to '%s': %s", from, to,
			 strerror(errno));
		goto out;
	}
	if (fsync_dir(dir, e) || fsync_dir(s->dir, e))
		goto out;
	ret = 0;
out:
	free(dir);
	free(from);
	free(to);
	return ret;
}
