#include "worker/config.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

enum key_type { KEY_STR, KEY_URL, KEY_CAPS, KEY_INT, KEY_BOOL };
enum { IN_FILE = 1, IN_FLAG = 2 };

struct key {
	const char *name; /* key in the config file */
	const char *flag; /* command-line flag, NULL = file only */
	enum key_type type;
	size_t offset;	 /* of the char * or int field */
	const char *def; /* default in text form; NULL = computed in init */
	long min, max;	 /* bounds of KEY_INT */
	unsigned where;
	const char *help;
};

#define F(field) offsetof(struct worker_config, field)

static const struct key keys[] = {
	{ "server_url", "--server", KEY_URL, F(server_url), "", 0, 0, IN_FILE | IN_FLAG,
	  "base URL of regtrack-server" },
	{ "token", "--token", KEY_STR, F(token), "", 0, 0, IN_FILE | IN_FLAG,
	  "bearer token of worker scope (or env REGTRACK_TOKEN; token_file is better)" },
	{ "token_file", "--token-file", KEY_STR, F(token_file), "", 0, 0, IN_FILE | IN_FLAG,
	  "file holding the token (mode 0600, the worker's user): read at start, wins over token" },
	{ "sandbox", "--sandbox", KEY_STR, F(sandbox), "on", 0, 0, IN_FILE | IN_FLAG,
	  "on: builds run in bubblewrap (patched builds refused without it); off: no sandbox" },
	{ "build_user", "--build-user", KEY_STR, F(build_user), "nobody", 0, 0, IN_FILE | IN_FLAG,
	  "user (name or uid) that sandboxed builds run as when the worker runs as root" },
	{ "work_dir", "--work-dir", KEY_STR, F(work_dir), "/var/lib/regtrack-worker", 0, 0,
	  IN_FILE | IN_FLAG, "mirrors, builds and the spool of unsent results" },
	{ "arch", "--arch", KEY_STR, F(arch), NULL, 0, 0, IN_FILE | IN_FLAG,
	  "architecture this worker tests (default: uname -m)" },
	{ "tbox_group", "--tbox-group", KEY_STR, F(tbox_group), NULL, 0, 0, IN_FILE | IN_FLAG,
	  "class of identical machines (default: host name)" },
	{ "capabilities", "--capabilities", KEY_CAPS, F(capabilities), "host", 0, 0,
	  IN_FILE | IN_FLAG,
	  "comma-separated: host,qemu-x86_64,qemu-aarch64,kexec-x86_64,kexec-aarch64" },
	{ "cases_dir", "--cases-dir", KEY_STR, F(cases_dir), "", 0, 0, IN_FILE | IN_FLAG,
	  "static case binaries (default: cases/ beside the executable)" },
	{ "ccache_dir", "--ccache-dir", KEY_STR, F(ccache_dir), "", 0, 0, IN_FILE | IN_FLAG,
	  "ccache directory (default: WORK_DIR/ccache)" },
	{ "make_jobs", "--make-jobs", KEY_INT, F(make_jobs), "0", 0, 1024, IN_FILE | IN_FLAG,
	  "parallel make jobs, 0 = online CPUs" },
	{ "qemu_mem_mb", "--qemu-mem-mb", KEY_INT, F(qemu_mem_mb), "512", 64, 1048576,
	  IN_FILE | IN_FLAG, "guest memory of qemu boots, MiB" },
	{ "qemu_cpus", "--qemu-cpus", KEY_INT, F(qemu_cpus), "0", 0, 512, IN_FILE | IN_FLAG,
	  "guest CPUs of qemu boots, 0 = the host's CPUs under KVM, 2 under TCG (a job's vcpus "
	  "param wins)" },
	{ "timeout_fetch_s", "--timeout-fetch", KEY_INT, F(timeout_fetch_s), "1800", 10, 86400,
	  IN_FILE | IN_FLAG, "time limit of git clone/fetch/archive, s" },
	{ "timeout_build_s", "--timeout-build", KEY_INT, F(timeout_build_s), "7200", 10, 172800,
	  IN_FILE | IN_FLAG, "time limit of the kernel build, s" },
	{ "timeout_boot_s", "--timeout-boot", KEY_INT, F(timeout_boot_s), "300", 5, 7200,
	  IN_FILE | IN_FLAG, "time limit from qemu start to the case's first output, s" },
	{ "timeout_run_s", "--timeout-run", KEY_INT, F(timeout_run_s), "1800", 5, 86400,
	  IN_FILE | IN_FLAG, "time limit of one case run, s" },
	{ "keep_logs", "--keep-logs", KEY_INT, F(keep_logs), "20", 0, 1000000, IN_FILE | IN_FLAG,
	  "run logs kept per build dir (serial-JOB-RUN.log) and of host mode (run-JOB-RUN.log), newest by job; 0 = every log" },
	{ "lease_wait_s", "--lease-wait", KEY_INT, F(lease_wait_s), "30", 0, 60, IN_FILE | IN_FLAG,
	  "long-poll wait of one lease request, s" },
	{ "heartbeat_s", "--heartbeat", KEY_INT, F(heartbeat_s), "15", 1, 3600, IN_FILE | IN_FLAG,
	  "heartbeat period outside the run phase, s" },
	{ "heartbeat_run_s", "--heartbeat-run", KEY_INT, F(heartbeat_run_s), "50", 1, 3600,
	  IN_FILE | IN_FLAG,
	  "heartbeat period while a case measures, s (keep below half the lease timeout)" },
	{ "http_timeout_s", "--http-timeout", KEY_INT, F(http_timeout_s), "30", 1, 600,
	  IN_FILE | IN_FLAG, "time limit of one HTTP request, s" },
	{ "retry_max_s", "--retry-max", KEY_INT, F(retry_max_s), "300", 1, 3600, IN_FILE | IN_FLAG,
	  "longest wait between two retries (upload, register, lease), s; with --once also how long a failing step is retried before exit 1" },
	{ "once", "--once", KEY_BOOL, F(once), "0", 0, 1, IN_FLAG,
	  "lease one job (or wait lease_wait_s once), then exit 0; exit 1 when a step fails for retry_max_s (unsent completions stay in the spool)" },
	{ "kexec_bin", "--kexec-bin", KEY_STR, F(kexec_bin), "kexec", 0, 0, IN_FILE | IN_FLAG,
	  "kexec-tools' kexec, for capabilities kexec-ARCH (looked up in PATH unless a path)" },
	{ "kexec_result_dev", "--kexec-result-dev", KEY_STR, F(kexec_result_dev), "", 0, 0,
	  IN_FILE | IN_FLAG,
	  "raw device (>= 16 MiB, nothing else on it) the kexec'd kernel writes its result to, as "
	  "that kernel names it; also read here after the reboot (README \"Bare metal\")" },
	{ "kexec_append", "--kexec-append", KEY_STR, F(kexec_append), "console=ttyS0,115200", 0, 0,
	  IN_FILE | IN_FLAG, "the kexec'd kernel's own command-line words" },
	{ "kexec_panic_s", "--kexec-panic", KEY_INT, F(kexec_panic_s), "10", 1, 3600,
	  IN_FILE | IN_FLAG, "panic=N of the kexec'd kernel: a panic reboots after N s" },
	{ "upload_images", "--upload-images", KEY_BOOL, F(upload_images), "0", 0, 1,
	  IN_FILE | IN_FLAG,
	  "upload each kernel image built (PUT /api/v1/images/SHA256) for bare-metal hosts whose "
	  "jobs name it (README \"Bare metal\")" },
	{ "config", "--config", KEY_STR, F(config_file), "", 0, 0, IN_FLAG,
	  "read this key = value file first" },
};

static const char *const known_caps[] = { "host", "qemu-x86_64", "qemu-aarch64", "kexec-x86_64",
					  "kexec-aarch64" };

static char **str_field(struct worker_config *c, const struct key *k)
{
	return (char **)((char *)c + k->offset);
}

static int *int_field(struct worker_config *c, const struct key *k)
{
	return (int *)((char *)c + k->offset);
}

static const struct key *key_by_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

static const struct key *key_by_flag(const char *flag, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (keys[i].flag && strlen(keys[i].flag) == len &&
		    !strncmp(keys[i].flag, flag, len))
			return &keys[i];
	return NULL;
}

static void set_str(struct worker_config *c, const struct key *k, char *v)
{
	char **p = str_field(c, k);

	free(*p);
	*p = v;
}

/* Whole string is a decimal integer within [min, max]. */
static int parse_int(const struct key *k, const char *v, int *out, struct err *e)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (!*v || *end || errno == ERANGE || end == v)
		return err_setc(e, ERR_CONFIG, k->name, "'%s' is not an integer", v);
	if (n < k->min || n > k->max)
		return err_setc(e, ERR_CONFIG, k->name, "'%s' is out of range [%ld, %ld]", v,
				k->min, k->max);
	*out = (int)n;
	return 0;
}

static int parse_url(const struct key *k, const char *v, char **out, struct err *e)
{
	const char *host;
	size_t len = strlen(v);

	if (!len) {
		*out = xstrdup("");
		return 0;
	}
	if (!strncmp(v, "http://", 7))
		host = v + 7;
	else if (!strncmp(v, "https://", 8))
		host = v + 8;
	else
		return err_setc(e, ERR_CONFIG, k->name, "'%s' is not an http:// or https:// URL",
				v);
	if (!*host || *host == '/')
		return err_setc(e, ERR_CONFIG, k->name, "'%s' has no host", v);
	for (const char *p = v; *p; p++)
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return err_setc(e, ERR_CONFIG, k->name, "'%s' contains white space", v);
	while (len && v[len - 1] == '/')
		len--;
	*out = xstrndup(v, len);
	return 0;
}

/* Comma-separated known capabilities, duplicates dropped, at least one. */
static int parse_caps(const struct key *k, const char *v, char **out, struct err *e)
{
	int seen[ARRAY_SIZE(known_caps)] = { 0 };
	size_t nr = 0;
	const char *p = v;
	char *res;
	size_t reslen = 0, resalloc = 0;

	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *s = p;
		size_t i;

		while (n && isspace((unsigned char)*s)) {
			s++;
			n--;
		}
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		if (n) {
			for (i = 0; i < ARRAY_SIZE(known_caps); i++)
				if (strlen(known_caps[i]) == n && !strncmp(known_caps[i], s, n))
					break;
			if (i == ARRAY_SIZE(known_caps))
				return err_setc(e, ERR_CONFIG, k->name,
						"unknown capability '%.*s' (known: host, qemu-x86_64, qemu-aarch64, "
						"kexec-x86_64, kexec-aarch64)",
						(int)n, s);
			if (!seen[i]++)
				nr++;
		}
		p = end ? end + 1 : p + strlen(p);
	}
	if (!nr)
		return err_setc(e, ERR_CONFIG, k->name, "no capability given");
	res = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(known_caps); i++) {
		size_t n = strlen(known_caps[i]);

		if (!seen[i])
			continue;
		ALLOC_GROW(res, reslen + n + 2, resalloc);
		if (reslen)
			res[reslen++] = ',';
		memcpy(res + reslen, known_caps[i], n);
		reslen += n;
		res[reslen] = '\0';
	}
	*out = res;
	return 0;
}

static int set_key(struct worker_config *c, const struct key *k, const char *v, struct err *e)
{
	char *s = NULL;
	int n = 0;

	switch (k->type) {
	case KEY_STR:
		set_str(c, k, xstrdup(v));
		return 0;
	case KEY_URL:
		if (parse_url(k, v, &s, e))
			return -1;
		set_str(c, k, s);
		return 0;
	case KEY_CAPS:
		if (parse_caps(k, v, &s, e))
			return -1;
		set_str(c, k, s);
		return 0;
	case KEY_INT:
	case KEY_BOOL:
		if (parse_int(k, v, &n, e))
			return -1;
		*int_field(c, k) = n;
		return 0;
	}
	return err_setc(e, ERR_INTERNAL, k->name, "bad key type");
}

void worker_config_init(struct worker_config *c)
{
	struct utsname u;
	char host[256];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];

		if (k->type == KEY_INT || k->type == KEY_BOOL)
			continue;
		*str_field(c, k) = xstrdup("");
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		struct err e;

		if (keys[i].def && set_key(c, &keys[i], keys[i].def, &e)) {
			/* a bad built-in default is a programming error */
			fprintf(stderr, "fatal: default of '%s': %s\n", keys[i].name, e.message);
			abort();
		}
	}
	if (!uname(&u))
		set_str(c, key_by_name("arch"), xstrdup(u.machine));
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		set_str(c, key_by_name("tbox_group"), xstrdup(host));
	}
}

void worker_config_release(struct worker_config *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];

		if (k->type == KEY_INT || k->type == KEY_BOOL)
			continue;
		free(*str_field(c, k));
		*str_field(c, k) = NULL;
	}
}

int worker_config_set(struct worker_config *c, const char *key, const char *value, struct err *e)
{
	const struct key *k = key_by_name(key);

	if (!k || !(k->where & IN_FILE))
		return err_setc(e, ERR_CONFIG, key, "unknown key '%s'", key);
	return set_key(c, k, value, e);
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

int worker_config_load_file(struct worker_config *c, const char *path, struct err *e)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t alloc = 0;
	ssize_t n;
	int lineno = 0, ret = 0;

	if (!f)
		return err_setc(e, ERR_IO, path, "cannot open config '%s': %s", path,
				strerror(errno));
	while ((n = getline(&line, &alloc, f)) >= 0) {
		char *eq, *key, *val, detail[200];
		size_t vlen;

		lineno++;
		if (memchr(line, '\0', (size_t)n)) {
			ret = err_setc(e, ERR_CONFIG, path, "%s:%d: NUL byte in config line", path,
				       lineno);
			break;
		}
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(detail, sizeof(detail), "%s:%d", path, lineno);
			ret = err_setc(e, ERR_CONFIG, detail, "%s:%d: expected 'key = value'", path,
				       lineno);
			break;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		vlen = strlen(val);
		if (vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
			val[vlen - 1] = '\0';
			val++;
		}
		if (worker_config_set(c, key, val, e)) {
			char msg[sizeof(e->message)];

			snprintf(detail, sizeof(detail), "%s:%d: %s", path, lineno, key);
			snprintf(msg, sizeof(msg), "%s", e->message);
			ret = err_setc(e, e->id, detail, "%s:%d: %s", path, lineno, msg);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = err_setc(e, ERR_IO, path, "cannot read config '%s'", path);
	free(line);
	fclose(f);
	return ret;
}

/* Splits "--flag=value" / "--flag value"; *consumed = argv entries used. */
static int flag_at(int argc, char **argv, int i, const struct key **kp, const char **val,
		   int *consumed, struct err *e)
{
	const char *arg = argv[i];
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct key *k;

	if (strncmp(arg, "--", 2) || !(k = key_by_flag(arg, len)))
		return err_setc(e, ERR_CONFIG, arg, "unknown option '%s'", arg);
	*kp = k;
	if (k->type == KEY_BOOL) {
		if (eq)
			return err_setc(e, ERR_CONFIG, arg, "option '%s' takes no value", k->flag);
		*val = "1";
		*consumed = 1;
		return 0;
	}
	if (eq) {
		*val = eq + 1;
		*consumed = 1;
		return 0;
	}
	if (i + 1 >= argc)
		return err_setc(e, ERR_CONFIG, arg, "option '%s' needs a value", arg);
	*val = argv[i + 1];
	*consumed = 2;
	return 0;
}

int worker_config_from_args(struct worker_config *c, int argc, char **argv, const char *env_token,
			    struct err *e)
{
	const struct key *k;
	const char *v;
	int used;

	/* pass 1: --config, so that every flag overrides the file */
	for (int i = 1; i < argc; i += used) {
		if (flag_at(argc, argv, i, &k, &v, &used, e))
			return -1;
		if (!strcmp(k->name, "config")) {
			set_str(c, k, xstrdup(v));
			if (worker_config_load_file(c, v, e))
				return -1;
		}
	}
	if (env_token && *env_token)
		set_str(c, key_by_name("token"), xstrdup(env_token));
	for (int i = 1; i < argc; i += used) {
		if (flag_at(argc, argv, i, &k, &v, &used, e))
			return -1;
		if (!strcmp(k->name, "config"))
			continue;
		if (set_key(c, k, v, e)) {
			char msg[sizeof(e->message)];

			snprintf(msg, sizeof(msg), "%s", e->message);
			return err_setc(e, e->id, k->name, "option '%s': %s", k->flag, msg);
		}
	}
	return 0;
}

int worker_config_check(const struct worker_config *c, struct err *e)
{
	if (!*c->server_url)
		return err_setc(e, ERR_CONFIG, "server_url",
				"no server URL (--server or server_url)");
	if (!*c->token)
		return err_setc(e, ERR_CONFIG, "token",
				"no token (--token, env REGTRACK_TOKEN or token)");
	if (!*c->work_dir)
		return err_setc(e, ERR_CONFIG, "work_dir", "no work dir (--work-dir)");
	if (!*c->arch)
		return err_setc(e, ERR_CONFIG, "arch", "no arch (--arch)");
	if (!*c->tbox_group)
		return err_setc(e, ERR_CONFIG, "tbox_group", "no tbox group (--tbox-group)");
	if (c->heartbeat_run_s < c->heartbeat_s)
		return err_setc(e, ERR_CONFIG, "heartbeat_run_s",
				"heartbeat_run_s (%d) is below heartbeat_s (%d)",
				c->heartbeat_run_s, c->heartbeat_s);
	if ((worker_config_has_cap(c, "kexec-x86_64") ||
	     worker_config_has_cap(c, "kexec-aarch64")) &&
	    !*c->kexec_result_dev)
		return err_setc(e, ERR_CONFIG, "kexec_result_dev",
				"capability kexec-ARCH needs kexec_result_dev (where the kexec'd "
				"kernel leaves its result)");
	return 0;
}

int worker_config_read_token(struct worker_config *c, struct err *e)
{
	char text[4096], *p, *end;
	struct stat st;
	ssize_t n;
	int fd;

	if (!*c->token_file)
		return 0;
	fd = open(c->token_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return err_setc(e, ERR_IO, c->token_file, "cannot open token file '%s': %s",
				c->token_file, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_setc(e, ERR_IO, c->token_file, "token file '%s' is not a regular file",
				c->token_file);
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		close(fd);
		return err_setc(e, ERR_CONFIG, "token_file",
				"token file '%s' has mode %04o: others may read it (chmod 600)",
				c->token_file, (unsigned)(st.st_mode & 07777));
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return err_setc(e, ERR_IO, c->token_file, "cannot read token file '%s': %s",
				c->token_file, strerror(errno));
	text[n] = '\0';
	for (p = text; *p == ' ' || *p == '\t'; p++)
		;
	end = p + strcspn(p, "\r\n");
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == p)
		return err_setc(e, ERR_CONFIG, "token_file", "token file '%s' is empty",
				c->token_file);
	set_str(c, key_by_name("token"), xstrndup(p, (size_t)(end - p)));
	explicit_bzero(text, sizeof(text));
	return 0;
}

int worker_config_has_cap(const struct worker_config *c, const char *cap)
{
	size_t n = strlen(cap);
	const char *p = c->capabilities;

	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && !strncmp(p, cap, n))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

void worker_config_kexec(const struct worker_config *c, struct kexec_conf *k)
{
	k->bin = c->kexec_bin;
	k->result_dev = c->kexec_result_dev && *c->kexec_result_dev ? c->kexec_result_dev : NULL;
	k->append = c->kexec_append;
	k->panic_s = c->kexec_panic_s;
	k->timeout_s = 60;
	k->server_url = c->server_url;
	k->token = c->token;
	k->http_timeout_s = c->http_timeout_s;
	k->upload = c->upload_images;
}

void worker_config_usage(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key *k = &keys[i];

		if (!k->flag)
			continue;
		fprintf(f, "  %-16s %s%s", k->flag, k->type == KEY_BOOL ? "" : "VALUE  ", k->help);
		if (k->where & IN_FILE)
			fprintf(f, " [key %s", k->name);
		if (k->type == KEY_INT && (k->where & IN_FILE))
			fprintf(f, ", default %s, %ld..%ld]", k->def, k->min, k->max);
		else if ((k->where & IN_FILE) && k->def && *k->def)
			fprintf(f, ", default %s]", k->def);
		else if (k->where & IN_FILE)
			fputc(']', f);
		fputc('\n', f);
	}
}
