#include "server/config.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum key_type { KEY_STRING, KEY_LONG, KEY_DOUBLE };

struct config_key {
	const char *name;
	enum key_type type;
	size_t offset;
	const char *def;
	long min, max; /* bounds of KEY_LONG and KEY_DOUBLE values */
};

#define S(n, d)                                                     \
	{                                                           \
#n, KEY_STRING, offsetof(struct config, n), d, 0, 0 \
	}
#define L(n, d, lo, hi)                                              \
	{                                                            \
#n, KEY_LONG, offsetof(struct config, n), #d, lo, hi \
	}
#define D(n, d, lo, hi)                                                \
	{                                                              \
#n, KEY_DOUBLE, offsetof(struct config, n), #d, lo, hi \
	}

static const struct config_key config_keys[] = {
	S(listen, "127.0.0.1:8080"),
	S(db, ""),
	S(web_dir, ""),
	S(smtp_url, ""),
	S(mail_from, "regtrack <regtrack@localhost>"),
	S(public_url, "http://127.0.0.1:8080"),
	/* mail (mailer.h) */
	S(smtp_user, ""),
	S(smtp_password, ""),
	S(smtp_starttls, "try"),
	S(mail_dry_run_dir, ""),
	S(mail_cc, ""),
	S(notify_domains, ""),
	L(mail_to_author, 0, 0, 1),
	L(mail_report_improvements, 0, 0, 1),
	L(mail_report_fixed, 1, 0, 1),
	L(mail_retry_max_s, 3600, 1, 86400),
	L(mail_poll_ms, 1000, 20, 600000),
	L(threads, 8, 1, 256),
	L(max_connections, 4000, 16, 1000000),
	L(max_connections_per_ip, 128, 0, 1000000),
	L(header_timeout_s, 30, 1, 3600),
	L(body_timeout_s, 300, 1, 86400),
	L(body_limit, 16777216, 1024, 1073741824),
	L(public_read, 1, 0, 1),
	L(access_log, 0, 0, 1),
	L(lease_timeout_s, 120, 1, 86400),
	L(max_attempts, 3, 1, 100),
	/* bare metal: the program that power-cycles a hung machine (powercycle.h) */
	S(power_cycle, ""),
	L(power_cycle_timeout_s, 120, 1, 3600),
	/* kernel images uploaded by the workers that built them (imagestore.h) */
	L(image_limit, 16777216, 1024, 1073741824),
	L(db_timeout_ms, 30000, 0, 3600000),
	S(db_replica, ""),
	L(db_replica_max_lag, 5, 1, 60),
	/* change detection (detect.h) */
	L(detect_enabled, 1, 0, 1),
	D(detect_min_change_pct, 1.0, 0, 1000),
	D(detect_p_max, 0.001, 0, 1),
	L(detect_window, 64, 8, 100000),
	L(detect_confirm_commits, 5, 1, 100000),
	L(detect_poll_ms, 1000, 20, 600000),
	D(detect_tip_z, 3.0, 0, 100),
	L(detect_tip_runs, 5, 1, 100),
	S(data_dir, "var/server"),
	L(auto_bisect, 1, 0, 1),
	D(auto_bisect_min_pct, 2.0, 0, 1000),
	L(bisect_max_k, 8, 1, 64),
	L(bisect_share_pct, 75, 1, 100),
	L(bisect_priority, -10, -1000, 1000),
	L(bisect_reuse_runs, 1, 0, 1),
	L(bisect_max_runs, 40, 10, 1000),
	D(bisect_probe_z, 3.0, 0, 10),
	L(bisect_poll_ms, 1000, 20, 600000),
	L(git_timeout_s, 1800, 5, 86400),
	L(resolve_timeout_s, 60, 2, 3600),
	L(resolve_threads, 4, 1, 64),
	/* tracking (poller.h, plan.h) */
	L(poll_tick_ms, 2000, 20, 600000),
	L(poll_timeout_s, 300, 5, 86400),
	L(plan_max_jobs_per_push, 1000, 1, 100000),
	L(track_priority, -20, -1000, 1000),
	L(track_queue_limit, 200, 0, 1000000),
	/* what one submit token may queue (api/jobs.c) */
	L(submit_priority_max, 0, -1000, 1000),
	L(submit_queue_max, 1000, 0, 10000000),
	/* profile diffs (api/profiles.c): at once, the folded text one may read, the replies kept */
	L(profile_diff_max, 2, 1, 64),
	L(profile_diff_max_mb, 64, 1, 4096),
	L(profile_diff_cache_mb, 64, 0, 65536),
	/* raw values by month (retention.h): 0 keeps them all */
	L(retention_raw_days, 0, 0, 36500),
};

int config_mail_domain_ok(const char *domains, const char *addr)
{
	const char *at = strchr(addr, '@'), *d;
	size_t n;

	if (!at || at == addr || !at[1] || strchr(at + 1, '@'))
		return 0;
	for (const char *p = addr; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || strchr(",<>\"'();:\\", *p))
			return 0;
	n = strlen(at + 1);
	for (d = domains; *d;) {
		size_t len;

		while (*d == ',' || *d == ' ' || *d == '\t')
			d++;
		len = strcspn(d, ", \t");
		if (len && len == n && !strncasecmp(d, at + 1, n))
			return 1;
		d += len;
	}
	return 0;
}

static const struct config_key *find_key(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(config_keys[i].name, name))
			return &config_keys[i];
	return NULL;
}

static int set_key(struct config *c, const struct config_key *k, const char *value,
		   const char *where, struct err *e)
{
	char *p = (char *)c + k->offset;

	if (k->type == KEY_STRING) {
		char **s = (char **)p;

		if (strcmp(where, "default") && !strcmp(k->name, "public_url"))
			c->public_url_given = 1;
		free(*s);
		*s = xstrdup(value);
		return 0;
	} else if (k->type == KEY_DOUBLE) {
		char *end;
		double v;

		errno = 0;
		v = strtod(value, &end);
		if (errno || end == value || *end || !(v >= k->min && v <= k->max))
			return err_setc(e, ERR_CONFIG, where,
					"'%s' must be a number in [%ld, %ld], not '%s'", k->name,
					k->min, k->max, value);
		*(double *)p = v;
		return 0;
	} else {
		char *end;
		long v;

		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || end == value || *end || v < k->min || v > k->max)
			return err_setc(e, ERR_CONFIG, where,
					"'%s' must be an integer in [%ld, %ld], not '%s'", k->name,
					k->min, k->max, value);
		*(long *)p = v;
		return 0;
	}
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (set_key(c, &config_keys[i], config_keys[i].def, "default", NULL))
			abort(); /* a default out of its own bounds is a bug */
}

void config_derive(struct config *c)
{
	const char *colon = strrchr(c->listen, ':');
	size_t hl;
	int wild;

	if (c->public_url_given || !colon || !colon[1] || !strcmp(colon + 1, "0"))
		return;
	hl = (size_t)(colon - c->listen);
	wild = (hl == 7 && !strncmp(c->listen, "0.0.0.0", 7)) ||
	       (hl == 4 && !strncmp(c->listen, "[::]", 4)) || hl == 0;
	free(c->public_url);
	c->public_url = wild ? xstrfmt("http://127.0.0.1:%s", colon + 1) :
			       xstrfmt("http://%.*s:%s", (int)hl, c->listen, colon + 1);
}

void config_release(struct config *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (config_keys[i].type == KEY_STRING)
			free(*(char **)((char *)c + config_keys[i].offset));
	memset(c, 0, sizeof(*c));
}

int config_set(struct config *c, const char *key, const char *value, struct err *e)
{
	const struct config_key *k = find_key(key);

	if (!k)
		return err_setc(e, ERR_CONFIG, key, "unknown config key '%s'", key);
	return set_key(c, k, value, key, e);
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

int config_load_file(struct config *c, const char *path, struct err *e)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int lineno = 0;

	if (!f)
		return err_setc(e, ERR_IO, path, "cannot read config file '%s': %s", path,
				strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *eq, *key, *val, where[300];
		const struct config_key *k;

		lineno++;
		key = trim(line);
		if (!*key || *key == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		eq = strchr(key, '=');
		if (!eq) {
			fclose(f);
			return err_setc(e, ERR_CONFIG, where, "expected 'key = value'");
		}
		*eq = '\0';
		val = trim(eq + 1);
		key = trim(key);
		/* optional double quotes around a value */
		if (val[0] == '"' && strlen(val) >= 2 && val[strlen(val) - 1] == '"') {
			val[strlen(val) - 1] = '\0';
			val++;
		}
		k = find_key(key);
		if (!k) {
			fclose(f);
			return err_setc(e, ERR_CONFIG, where, "unknown config key '%s'", key);
		}
		if (set_key(c, k, val, where, e)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}
