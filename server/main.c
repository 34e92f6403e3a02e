/*
 * regtrack-server — serve (default), migrate, token create|revoke.
 *
 *   regtrack-server [serve] [--config FILE] [--db CONNINFO] [--listen ADDR:PORT]
 *                   [--threads N] [--lease-timeout S] [--smtp URL] [--public-url URL]
 *                   [--web-dir DIR]
 *   regtrack-server migrate [--db CONNINFO]
 *   regtrack-server retention [--retention-raw-days N]   partitions made, old months of raw values dropped
 *   regtrack-server token create --scope worker|submit|read|admin --name NAME
 *   regtrack-server token revoke NAME
 *   regtrack-server token list          id, name, scope, live/revoked, created, last used
 *   regtrack-server plan apply FILE.json
 *   regtrack-server backtest --plan NAME [--since DATE] [--set KEY=VALUE]... [--json]
 *
 * The database comes from --db, else the config's `db`, else env REGTRACK_DB.
 */
#include "server/http/auth.h"
#include "server/api/route_args.h"
#include "server/detect/backtest.h"
#include "server/bisect/bisect.h"
#include "server/bisect/bisect_coord.h"
#include "server/config.h"
#include "server/db/db.h"
#include "server/db/tokens.h"
#include "server/db/migrate.h"
#include "server/retention.h"
#include "server/detect/detect.h"
#include "server/http/http.h"
#include "server/jobs/lease.h"
#include "server/log.h"
#include "server/mail/mailer.h"
#include "server/track/plan.h"
#include "server/track/poller.h"
#include "server/abtest/resolver.h"
#include "server/api/api.h"
#include "server/inbox/inbox_poll.h"
#include "server/replica.h"
#include "server/http/replycache.h"
#include "xalloc.h"

#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: regtrack-server [serve] [--config FILE] [--db CONNINFO] [--listen ADDR:PORT]\n"
	"                       [--threads N] [--lease-timeout SECONDS] [--max-attempts N]\n"
	"                       [--smtp URL] [--public-url URL] [--web-dir DIR]\n"
	"                       [--body-limit BYTES] [--max-connections-per-ip N]\n"
	"                       [--access-log 0|1]\n"
	"       regtrack-server migrate [--config FILE] [--db CONNINFO]\n"
	"       regtrack-server retention [--config FILE] [--retention-raw-days N]\n"
	"       regtrack-server token create --scope worker|submit|read|admin --name NAME\n"
	"       regtrack-server token revoke NAME\n"
	"       regtrack-server token list\n"
	"       regtrack-server plan apply FILE.json\n"
	"       regtrack-server backtest --plan NAME [--since DATE] [--set KEY=VALUE]... [--json]\n";

/* flag -> config key; one table for every option that sets a key */
static const struct {
	const char *flag, *key;
} flag_keys[] = {
	{ "--db", "db" },
	{ "--listen", "listen" },
	{ "--threads", "threads" },
	{ "--lease-timeout", "lease_timeout_s" },
	{ "--max-attempts", "max_attempts" },
	{ "--smtp", "smtp_url" },
	{ "--public-url", "public_url" },
	{ "--web-dir", "web_dir" },
	{ "--body-limit", "body_limit" },
	{ "--max-connections-per-ip", "max_connections_per_ip" },
	{ "--access-log", "access_log" },
	{ "--retention-raw-days", "retention_raw_days" },
};

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

static void find_web_dir(struct server *srv)
{
	static const char *const rel[] = { "/../web", "/../../../web", "/../share/regtrack/web" };
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n;
	char *slash;

	if (srv->cfg->web_dir[0]) {
		snprintf(srv->web_dir, sizeof(srv->web_dir), "%s", srv->cfg->web_dir);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		snprintf(path, sizeof(path), "%s%s/index.html", exe, rel[i]);
		if (!access(path, R_OK)) {
			snprintf(srv->web_dir, sizeof(srv->web_dir), "%s%s", exe, rel[i]);
			return;
		}
	}
}

static int do_migrate(struct config *cfg)
{
	struct err e;
	struct db_conn *c = db_connect_once(cfg->db, &e);
	int n;

	if (!c || migrate_apply(c, &n, &e)) {
		slog_error("%s", e.message);
		db_close(c);
		return 1;
	}
	db_close(c);
	/* sql/ numbers skip some: the count of files applied is not the version */
	printf("migrations applied now: %d; schema version %d, the newest of sql/'s %u\n", n,
	       nr_migrations ? migrations[nr_migrations - 1].version : 0, nr_migrations);
	return 0;
}

/* the token named name as JSON (new; no secret), or NULL with e (ERR_NOT_FOUND: none) */
static json_t *token_by_name(struct db_conn *c, const char *name, struct err *e)
{
	char *text = NULL;
	json_t *t;

	if (db_token_by_name_json(c, name, &text, e) < 0)
		return NULL;
	t = json_loads(text, 0, NULL);
	free(text);
	if (!t)
		err_setc(e, ERR_INTERNAL, "", "token JSON unreadable");
	return t;
}

/* `token list`: one line per token, never its secret */
static int token_list(struct db_conn *c)
{
	char *text = NULL;
	struct err e;
	json_t *all, *t;
	size_t i;

	if (db_tokens_json(c, &text, &e) < 0) {
		slog_error("%s", e.message);
		return 1;
	}
	all = json_loads(text, 0, NULL);
	free(text);
	printf("%-6s %-24s %-7s %-8s %-32s %s\n", "ID", "NAME", "SCOPE", "STATE", "CREATED",
	       "LAST USED");
	json_array_foreach (all, i, t) {
		json_t *used = json_object_get(t, "last_used");

		printf("%-6lld %-24s %-7s %-8s %-32s %s\n",
		       (long long)json_integer_value(json_object_get(t, "id")),
		       json_string_value(json_object_get(t, "name")),
		       json_string_value(json_object_get(t, "scope")),
		       json_is_null(json_object_get(t, "revoked_at")) ? "live" : "revoked",
		       json_string_value(json_object_get(t, "created_at")),
		       json_is_string(used) ? json_string_value(used) : "never");
	}
	json_decref(all);
	return 0;
}

static int do_token(struct config *cfg, int argc, char **argv)
{
	const char *scope = NULL, *name = NULL;
	struct err e;
	struct db *db;
	struct db_conn *c;
	int ret = 0;

	if (argc < 1)
		return usage();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--scope") && i + 1 < argc)
			scope = argv[++i];
		else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!name && argv[i][0] != '-')
			name = argv[i];
		else
			return usage();
	}
	if (!strcmp(argv[0], "list") ? name || scope :
				       !name || (!strcmp(argv[0], "create") && !scope))
		return usage();
	c = db_connect_once(cfg->db, &e);
	if (!c || migrate_apply(c, NULL, &e)) {
		slog_error("%s", e.message);
		db_close(c);
		return 1;
	}
	db_close(c);
	/* a connection of the server's kind: its statements prepared */
	db = db_new(cfg->db, cfg->db_timeout_ms);
	c = db_conn(db, &e);
	if (!c) {
		slog_error("%s", e.message);
		db_free(db);
		return 1;
	}
	if (!strcmp(argv[0], "create")) {
		char *tok;
		json_t *old = token_by_name(c, name, &e);

		if (old) {
			/* one line, before PostgreSQL's unique violation (and its log line) */
			fprintf(stderr,
				"regtrack-server: a token named '%s' exists (id %lld, scope %s%s): pick another name, or revoke it and create a new one under another name\n",
				name, (long long)json_integer_value(json_object_get(old, "id")),
				json_string_value(json_object_get(old, "scope")),
				json_is_null(json_object_get(old, "revoked_at")) ? "" :
										   ", revoked");
			json_decref(old);
			ret = 1;
		} else if (e.id != ERR_NOT_FOUND || token_create(c, name, scope, &tok, &e)) {
			slog_error("%s", e.message);
			ret = 1;
		} else {
			printf("%s\n", tok);
			free(tok);
		}
	} else if (!strcmp(argv[0], "revoke")) {
		json_t *t = token_by_name(c, name, &e);

		if (t && !json_is_null(json_object_get(t, "revoked_at"))) {
			fprintf(stderr,
				"regtrack-server: token '%s' (id %lld) was revoked already, at %s\n",
				name, (long long)json_integer_value(json_object_get(t, "id")),
				json_string_value(json_object_get(t, "revoked_at")));
			ret = 1;
		} else if (!t || token_revoke(c, name, &e)) {
			fprintf(stderr, "regtrack-server: %s\n",
				e.id == ERR_NOT_FOUND ?
					"no token of that name (regtrack-server token list shows them)" :
					e.message);
			ret = 1;
		} else {
			printf("revoked token '%s' (id %lld, scope %s, created %s, last used %s): requests with it now get 401\n",
			       name, (long long)json_integer_value(json_object_get(t, "id")),
			       json_string_value(json_object_get(t, "scope")),
			       json_string_value(json_object_get(t, "created_at")),
			       json_is_string(json_object_get(t, "last_used")) ?
				       json_string_value(json_object_get(t, "last_used")) :
				       "never");
		}
		json_decref(t);
	} else if (!strcmp(argv[0], "list")) {
		ret = token_list(c);
	} else {
		ret = usage();
	}
	db_free(db);
	return ret;
}

static int do_serve(struct config *cfg)
{
	struct server srv;
	struct err e;
	sigset_t set;
	int sig, n;
	struct db_conn *c;

	memset(&srv, 0, sizeof(srv));
	srv.cfg = cfg;
	srv.started = (long)time(NULL);
	find_web_dir(&srv);
	if (api_route_args(&srv.route_args, &e)) {
		slog_error("%s", e.message);
		return 1;
	}

	c = db_connect_once(cfg->db, &e);
	if (!c || migrate_apply(c, &n, &e)) {
		slog_error("%s", e.message);
		db_close(c);
		route_args_free(srv.route_args, nr_routes);
		return 1;
	}
	db_close(c);

	/* threads inherit this mask; the main thread takes the signals with sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	/*
	 * A fixed mmap threshold (glibc raises its own after each large free, then
	 * serves 4 MiB bodies from arenas that keep the memory): every buffer of
	 * 1 MiB and more is mapped and unmapped on its own. http.c trims the rest
	 * after large requests.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	srv.db = db_new(cfg->db, cfg->db_timeout_ms);
	srv.replica = replica_start(cfg, srv.db);
	srv.leases = lease_queue_start(&srv);
	/* the background threads, each through its module */
	if (mailer_check_config(cfg, &e))
		slog_warn("%s; mail is off", e.message);
	else
		srv.mailer = mailer_start(&srv);
	if (cfg->detect_enabled)
		srv.detect = detect_thread_start(&srv);
	srv.bisects = bisect_coord_start(&srv);
	srv.poller = poller_start(&srv);
	srv.submit_request = api_request_submit;
	srv.resolve_request = api_request_resolve;
	srv.resolver = resolver_start(&srv);
	srv.inboxes = inbox_poller_start(&srv);
	srv.retention = retention_start(&srv);
	srv.diff_cache = reply_cache_new((size_t)cfg->profile_diff_cache_mb << 20);
	if (http_start(&srv, routes, nr_routes, &e)) {
		slog_error("%s", e.message);
		retention_stop(srv.retention);
		inbox_poller_stop(srv.inboxes);
		resolver_stop(srv.resolver);
		poller_stop(srv.poller);
		bisect_coord_stop(srv.bisects);
		detect_thread_stop(srv.detect);
		lease_queue_stop(srv.leases);
		mailer_stop(srv.mailer);
		replica_stop(srv.replica);
		reply_cache_free(srv.diff_cache);
		db_free(srv.db);
		route_args_free(srv.route_args, nr_routes);
		return 1;
	}
	printf("listening on %.*s:%u\n", (int)(strrchr(cfg->listen, ':') - cfg->listen),
	       cfg->listen, srv.port);
	fflush(stdout);

	sigwait(&set, &sig);
	slog_info("%s, draining", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	http_quiesce(&srv);
	bisect_coord_halt(srv.bisects); /* before the lease queue it kicks; freed after http_stop */
	poller_halt(srv.poller);	/* the same */
	inbox_poller_stop(srv.inboxes); /* it queues requests, which kick the lease queue */
	resolver_halt(srv.resolver);	/* it queues jobs too; freed after http_stop */
	srv.inboxes = NULL;
	/* long polls answer 204 now; everything else gets up to 30 s to finish */
	lease_queue_stop(srv.leases);
	srv.leases = NULL;
	retention_stop(srv.retention);
	srv.retention = NULL;
	detect_thread_stop(srv.detect);
	srv.detect = NULL;
	for (int i = 0; i < 300 && atomic_load(&srv.in_flight); i++)
		usleep(100 * 1000);
	http_stop(&srv);
	mailer_stop(srv.mailer); /* after http_stop: handlers kick it */
	bisect_coord_stop(srv.bisects);
	srv.bisects = NULL;
	poller_stop(srv.poller);
	srv.poller = NULL;
	resolver_stop(srv.resolver); /* after http_stop: handlers kick it */
	srv.resolver = NULL;
	srv.mailer = NULL;
	replica_stop(srv.replica);	  /* after http_stop: handlers read through it */
	reply_cache_free(srv.diff_cache); /* after http_stop: handlers fill it */
	db_free(srv.db);
	route_args_free(srv.route_args, nr_routes);
	slog_info("stopped");
	return 0;
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct err e;
	const char *cmd = "serve";
	int i, ret, cmd_set = 0;

	config_init(&cfg);
	/* --config first, so that flags override the file wherever they appear */
	for (int k = 1; k < argc - 1; k++) {
		if (!strcmp(argv[k], "--config") && config_load_file(&cfg, argv[k + 1], &e)) {
			slog_error("%s (%s)", e.message, e.detail);
			config_release(&cfg);
			return 2;
		}
	}
	/* global flags may come before or after the subcommand's name */
	for (i = 1; i < argc; i++) {
		size_t k;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			config_release(&cfg);
			return 0;
		}
		if (!strcmp(argv[i], "--config") && i + 1 < argc) {
			i++;
			continue;
		}
		if (!cmd_set && (!strcmp(argv[i], "serve") || !strcmp(argv[i], "migrate") ||
				 !strcmp(argv[i], "token") || !strcmp(argv[i], "plan") ||
				 !strcmp(argv[i], "backtest") || !strcmp(argv[i], "retention"))) {
			cmd = argv[i];
			cmd_set = 1;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(flag_keys); k++)
			if (!strcmp(argv[i], flag_keys[k].flag))
				break;
		if (k == ARRAY_SIZE(flag_keys))
			break; /* a subcommand's own arguments start here */
		if (i + 1 >= argc) {
			config_release(&cfg);
			return usage();
		}
		if (config_set(&cfg, flag_keys[k].key, argv[++i], &e)) {
			slog_error("%s", e.message);
			config_release(&cfg);
			return 2;
		}
	}
	config_derive(&cfg);
	if (!cfg.db[0] && getenv("REGTRACK_DB") &&
	    config_set(&cfg, "db", getenv("REGTRACK_DB"), &e))
		abort();
	if (!cfg.db[0]) {
		slog_error("no database: give --db CONNINFO, `db` in the config or "
			   "REGTRACK_DB (deploy/pg-local url prints one)");
		config_release(&cfg);
		return 2;
	}

	if (!strcmp(cmd, "serve") && i == argc)
		ret = do_serve(&cfg);
	else if (!strcmp(cmd, "migrate") && i == argc)
		ret = do_migrate(&cfg);
	else if (!strcmp(cmd, "retention") && i == argc)
		ret = retention_cli(&cfg);
	else if (!strcmp(cmd, "token"))
		ret = do_token(&cfg, argc - i, argv + i);
	else if (!strcmp(cmd, "plan"))
		ret = plan_cli(cfg.db, cfg.plan_max_jobs_per_push, cfg.detect_window, argc - i,
			       argv + i);
	else if (!strcmp(cmd, "backtest"))
		ret = backtest_cli(&cfg, argc - i, argv + i);
	else
		ret = usage();
	config_release(&cfg);
	return ret;
}
