#include "worker/sandbox.h"

#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attr.h"
#include "runcmd.h"
#include "xalloc.h"

/* What the toolchain reads from /etc (ld.so, update-alternatives' links, user names). */
static const char *const etc_files[] = { "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf",
					 "/etc/ld.so.conf.d", "/etc/passwd",	  "/etc/group",
					 "/etc/localtime" };

#define SANDBOX_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct vec {
	char **v;
	size_t n, alloc;
};

static void push(struct vec *a, const char *s)
{
	xgrow((void **)&a->v, &a->alloc, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void push_own(struct vec *a, char *s)
{
	push(a, s);
	free(s);
}

/* find argv0 in PATH: a new absolute path, or NULL */
static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *colon;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (p = path; p; p = colon ? colon + 1 : NULL) {
		char *cand;

		colon = strchr(p, ':');
		cand = xstrfmt("%.*s/%s", colon ? (int)(colon - p) : (int)strlen(p), p, prog);
		if (cand[0] == '/' && access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

int sandbox_usable(const struct sandbox *sb)
{
	return sb && !sb->off && sb->bwrap;
}

/*
 * Each ancestor of path as an empty dir of mode 0755 in the sandbox: bwrap
 * would otherwise copy the modes of the real ones (a 0700 work dir's parent
 * would stop the build user on the way to its build dir).
 */
static void push_parents(struct vec *a, const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (strcmp(p, "/usr") && strncmp(p, "/usr/", 5) && strcmp(p, "/proc") &&
		    strcmp(p, "/dev")) {
			push(a, "--perms");
			push(a, "0755");
			push(a, "--dir");
			push(a, p);
		}
		*s = '/';
	}
	free(p);
}

char **sandbox_argv(const struct sandbox *sb, const struct sandbox_spec *spec,
		    const char *const *argv)
{
	struct vec a = { 0 };
	size_t i;
	int root = sb->uid >= 0;

	push(&a, sb->bwrap);
	if (root) {
		/* no user namespace: bwrap sets up the mounts as root, setpriv below drops
		 * to the build user for good (files it writes are the build user's) */
		push(&a, "--unshare-ipc");
		push(&a, "--unshare-pid");
		push(&a, "--unshare-net");
		push(&a, "--unshare-uts");
		push(&a, "--unshare-cgroup-try");
		push(&a, "--cap-add");
		push(&a, "CAP_SETUID");
		push(&a, "--cap-add");
		push(&a, "CAP_SETGID");
	} else {
		push(&a, "--unshare-all");
	}
	push(&a, "--die-with-parent");
	push(&a, "--new-session"); /* no TIOCSTI into a terminal of ours */
	push(&a, "--ro-bind");
	push(&a, "/usr");
	push(&a, "/usr");
	static const char *const links[][2] = { { "usr/bin", "/bin" },
						{ "usr/sbin", "/sbin" },
						{ "usr/lib", "/lib" },
						{ "usr/lib64", "/lib64" },
						{ "usr/lib32", "/lib32" } };
	for (i = 0; i < ARRAY_SIZE(links); i++) {
		push(&a, "--symlink");
		push(&a, links[i][0]);
		push(&a, links[i][1]);
	}
	/* bwrap would make /etc 0700: the build user could not reach awk (alternatives) */
	push(&a, "--perms");
	push(&a, "0755");
	push(&a, "--dir");
	push(&a, "/etc");
	for (i = 0; i < ARRAY_SIZE(etc_files); i++) {
		push(&a, "--ro-bind-try");
		push(&a, etc_files[i]);
		push(&a, etc_files[i]);
	}
	push(&a, "--proc");
	push(&a, "/proc");
	push(&a, "--dev");
	push(&a, "/dev");
	/* sticky and world-writable: the build user's compilers put their files there */
	push(&a, "--perms");
	push(&a, "01777");
	push(&a, "--tmpfs");
	push(&a, "/tmp");
	for (i = 0; spec->ro && spec->ro[i]; i++) {
		push_parents(&a, spec->ro[i]);
		push(&a, "--ro-bind-try");
		push(&a, spec->ro[i]);
		push(&a, spec->ro[i]);
	}
	for (i = 0; spec->rw && spec->rw[i]; i++) {
		push_parents(&a, spec->rw[i]);
		push(&a, "--bind");
		push(&a, spec->rw[i]);
		push(&a, spec->rw[i]);
	}
	push(&a, "--chdir");
	push(&a, spec->cwd ? spec->cwd : "/");
	push(&a, "--clearenv");
	push(&a, "--setenv");
	push(&a, "PATH");
	push(&a, SANDBOX_PATH);
	push(&a, "--setenv");
	push(&a, "HOME");
	push(&a, "/tmp");
	push(&a, "--setenv");
	push(&a, "TMPDIR");
	push(&a, "/tmp");
	for (i = 0; spec->env && spec->env[i]; i++) {
		const char *eq = strchr(spec->env[i], '=');

		if (!eq)
			continue;
		push(&a, "--setenv");
		push_own(&a, xstrndup(spec->env[i], (size_t)(eq - spec->env[i])));
		push(&a, eq + 1);
	}
	push(&a, "--");
	if (root) {
		push(&a, "/usr/bin/setpriv");
		push_own(&a, xstrfmt("--reuid=%ld", sb->uid));
		push_own(&a, xstrfmt("--regid=%ld", sb->gid));
		push(&a, "--clear-groups");
		push(&a, "--inh-caps=-all");
		push(&a, "--bounding-set=-all");
		push(&a, "--no-new-privs");
		push(&a, "--");
	}
	push(&a, "/usr/bin/prlimit");
	if (spec->cpu_s > 0)
		push_own(&a, xstrfmt("--cpu=%d", spec->cpu_s));
	push_own(&a, xstrfmt("--as=%llu", SANDBOX_AS_BYTES));
	push_own(&a, xstrfmt("--fsize=%llu", SANDBOX_FSIZE_BYTES));
	push_own(&a, xstrfmt("--nproc=%d", SANDBOX_NPROC));
	push(&a, "--core=0");
	push(&a, "--");
	for (i = 0; argv[i]; i++)
		push(&a, argv[i]);
	return a.v;
}

void sandbox_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static int build_user(struct sandbox *sb, const char *name, struct err *e)
{
	struct passwd *pw;
	char *end;
	long uid;

	if (!name || !*name)
		name = "nobody";
	errno = 0;
	uid = strtol(name, &end, 10);
	if (*name >= '0' && *name <= '9' && !*end && !errno) {
		pw = getpwuid((uid_t)uid);
		sb->uid = uid;
		sb->gid = pw ? (long)pw->pw_gid : uid;
	} else {
		pw = getpwnam(name);
		if (!pw)
			return err_setc(e, ERR_CONFIG, "build_user", "no user '%s'", name);
		sb->uid = (long)pw->pw_uid;
		sb->gid = (long)pw->pw_gid;
	}
	if (sb->uid == 0)
		return err_setc(e, ERR_CONFIG, "build_user", "build user '%s' is root", name);
	return 0;
}

int sandbox_init(struct sandbox *sb, const char *mode, const char *user, struct err *e)
{
	const char *const truth[] = { "/usr/bin/true", NULL };
	struct sandbox_spec spec = { 0 };
	struct runcmd cmd;
	struct err pe;
	char **argv;

	memset(sb, 0, sizeof(*sb));
	sb->uid = sb->gid = -1;
	if (mode && *mode && strcmp(mode, "on") && strcmp(mode, "off"))
		return err_setc(e, ERR_CONFIG, "sandbox", "sandbox is 'on' or 'off', not '%s'",
				mode);
	if (mode && !strcmp(mode, "off")) {
		sb->off = 1;
		return 0;
	}
	if (geteuid() == 0 && build_user(sb, user, e))
		return -1;
	sb->bwrap = find_in_path("bwrap");
	if (!sb->bwrap) {
		snprintf(sb->why, sizeof(sb->why), "bwrap not found in PATH (Debian: bubblewrap)");
		return 0;
	}
	argv = sandbox_argv(sb, &spec, truth);
	runcmd_init(&cmd, (const char *const *)argv, 30);
	cmd.merge_stderr = 1;
	if (runcmd_run(&cmd, &pe) < 0 || !runcmd_ok(&cmd)) {
		char desc[64];
		size_t len = cmd.out.len;

		while (len && cmd.out.data[len - 1] == '\n')
			len--;
		snprintf(sb->why, sizeof(sb->why), "'%.64s' does not run: %.64s%s%.*s", sb->bwrap,
			 pe.message[0] && !cmd.exited ? pe.message :
							runcmd_describe(&cmd, desc, sizeof(desc)),
			 len ? ": " : "", (int)(len > 100 ? 100 : len), cmd.out.data);
		free(sb->bwrap);
		sb->bwrap = NULL;
	}
	runcmd_release(&cmd);
	sandbox_argv_free(argv);
	return 0;
}

void sandbox_release(struct sandbox *sb)
{
	free(sb->bwrap);
	sb->bwrap = NULL;
}

/* nftw has no context pointer: the owner of one sandbox_own_dir walk */
static __thread uid_t walk_uid;
static __thread gid_t walk_gid;
static __thread const char *walk_failed;
static __thread int walk_errno;

static int own_one(const char *path, const struct stat *st UNUSED, int flag UNUSED,
		   struct FTW *ftw UNUSED)
{
	if (lchown(path, walk_uid, walk_gid) < 0) {
		walk_errno = errno;
		walk_failed = path;
		return 1;
	}
	return 0;
}

int sandbox_own_dir(const struct sandbox *sb, const char *dir, struct err *e)
{
	struct stat st;

	if (!sandbox_usable(sb) || sb->uid < 0)
		return 0;
	if (lstat(dir, &st) < 0)
		return err_setc(e, ERR_IO, dir, "cannot stat '%s': %s", dir, strerror(errno));
	if (st.st_uid == (uid_t)sb->uid && st.st_gid == (gid_t)sb->gid)
		return 0;
	walk_uid = (uid_t)sb->uid;
	walk_gid = (gid_t)sb->gid;
	walk_failed = NULL;
	if (nftw(dir, own_one, 32, FTW_PHYS | FTW_DEPTH) != 0) {
		/* the failing path is only valid inside the walk: name the dir */
		return err_setc(e, ERR_IO, dir, "cannot give '%s' to the build user: %s", dir,
				walk_failed ? strerror(walk_errno) : strerror(errno));
	}
	return 0;
}
