/* Typed rows of series assembly; see inbox_series.h. */
#include "server/db/inbox_series.h"
#include "server/db/db.h"
#include "server/db/db_int.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : xstrdup(PQgetvalue(r, row, col));
}

static PGresult *exec_id(struct db_conn *c, enum db_stmt st, long long id, struct err *e)
{
	char b[24];
	const char *p[1] = { b };

	snprintf(b, sizeof(b), "%lld", id);
	return db_exec(c, st, 1, p, e);
}

int db_inbox_unassigned(struct db_conn *c, long long inbox_id, struct db_inbox_unassigned **rows,
			size_t *n, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_UNASSIGNED, inbox_id, e);

	*rows = NULL;
	*n = 0;
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	if (*n)
		*rows = xcalloc(*n, sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		(*rows)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		(*rows)[i].message_id = xstrdup(PQgetvalue(r, (int)i, 1));
		(*rows)[i].refs = xstrdup(PQgetvalue(r, (int)i, 2));
		(*rows)[i].subject = xstrdup(PQgetvalue(r, (int)i, 3));
		(*rows)[i].recipients = xstrdup(PQgetvalue(r, (int)i, 4));
	}
	PQclear(r);
	return 0;
}

void db_inbox_unassigned_free(struct db_inbox_unassigned *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].message_id);
		free(rows[i].refs);
		free(rows[i].subject);
		free(rows[i].recipients);
	}
	free(rows);
}

int db_inbox_message_subject(struct db_conn *c, long long inbox_id, const char *message_id,
			     char *out, size_t size, struct err *e)
{
	char b[24];
	const char *p[2] = { b, message_id };
	PGresult *r;
	int got;

	snprintf(b, sizeof(b), "%lld", inbox_id);
	r = db_exec(c, ST_INBOX_MESSAGE_SUBJECT, 2, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	snprintf(out, size, "%s", got ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	return got;
}

int db_inbox_message_assign(struct db_conn *c, long long id, long long series_id, int part,
			    struct err *e)
{
	char b[24], s[24], pt[24];
	const char *p[3] = { b, series_id > 0 ? s : NULL, series_id > 0 ? pt : NULL };

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(s, sizeof(s), "%lld", series_id);
	snprintf(pt, sizeof(pt), "%d", part);
	return db_rows(c, ST_INBOX_MESSAGE_ASSIGN, 3, p, e) < 0 ? -1 : 0;
}

long long db_inbox_series_upsert(struct db_conn *c, long long inbox_id,
				 const struct db_inbox_series_new *s, struct err *e)
{
	char b[24], v[24], t[24];
	const char *p[9] = { b,	       s->anchor, s->cover ? "true" : "false",
			     v,	       t,	  s->resend ? "true" : "false",
			     s->title, s->author, s->lead ? "true" : "false" };
	long long id;

	snprintf(b, sizeof(b), "%lld", inbox_id);
	snprintf(v, sizeof(v), "%d", s->version);
	snprintf(t, sizeof(t), "%d", s->total);
	if (db_one_int8(c, ST_INBOX_SERIES_UPSERT, 9, p, &id, e))
		return -1;
	return id;
}

int db_inbox_series_waiting(struct db_conn *c, long long inbox_id, struct db_inbox_waiting **rows,
			    size_t *n, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_SERIES_WAITING, inbox_id, e);

	*rows = NULL;
	*n = 0;
	if (!r)
		return -1;
	*n = (size_t)PQntuples(r);
	if (*n)
		*rows = xcalloc(*n, sizeof(**rows));
	for (size_t i = 0; i < *n; i++) {
		(*rows)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		(*rows)[i].anchor = xstrdup(PQgetvalue(r, (int)i, 1));
		(*rows)[i].version = (int)strtol(PQgetvalue(r, (int)i, 2), NULL, 10);
		(*rows)[i].title = xstrdup(PQgetvalue(r, (int)i, 3));
		(*rows)[i].complete = PQgetvalue(r, (int)i, 4)[0] == 't';
		(*rows)[i].expired = PQgetvalue(r, (int)i, 5)[0] == 't';
	}
	PQclear(r);
	return 0;
}

void db_inbox_waiting_free(struct db_inbox_waiting *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].anchor);
		free(rows[i].title);
	}
	free(rows);
}

/* appends one message to an mboxrd: the separator, ">*From " lines quoted once more */
static int mboxrd_add(struct buf *b, const char *text)
{
	int over = buf_addstr(b, "From mboxrd@z Thu Jan  1 00:00:00 1970\n");

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *q = p;
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);

		while (*q == '>')
			q++;
		if (!strncmp(q, "From ", 5))
			over |= buf_addch(b, '>');
		over |= buf_add(b, p, n);
		p += n;
	}
	if (b->len && b->data[b->len - 1] != '\n')
		over |= buf_addch(b, '\n');
	over |= buf_addch(b, '\n');
	return over;
}

int db_inbox_series_thread(struct db_conn *c, long long id, struct buf *mbox, struct buf *lead,
			   struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_SERIES_THREAD, id, e);
	int over = 0;

	if (!r)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		/* b4 reads the bytes delivered; the scrubbed text serves base-commit */
		if (!PQgetisnull(r, i, 2)) {
			const char *hex = PQgetvalue(r, i, 2);
			size_t n = strlen(hex) / 2;
			char *bytes = xmalloc(n + 1);

			for (size_t k = 0; k < n; k++) {
				unsigned v = 0;

				sscanf(hex + 2 * k, "%2x", &v);
				/* a NUL would end the text: kept as the scrubbed text has it */
				bytes[k] = v ? (char)v : '?';
			}
			bytes[n] = '\0';
			over |= mboxrd_add(mbox, bytes);
			free(bytes);
		} else {
			over |= mboxrd_add(mbox, PQgetvalue(r, i, 0));
		}
		if (PQgetvalue(r, i, 1)[0] == 't')
			over |= buf_addstr(lead, PQgetvalue(r, i, 0)) | buf_addch(lead, '\n');
	}
	PQclear(r);
	if (over)
		return err_setc(e, ERR_TOO_LARGE, "patches",
				"the thread of series %lld is too large", id);
	return 0;
}

int db_inbox_filter(struct db_conn *c, long long inbox_id, struct db_inbox_filter *f, struct err *e)
{
	PGresult *r = exec_id(c, ST_INBOX_FILTER, inbox_id, e);

	memset(f, 0, sizeof(*f));
	if (!r)
		return -1;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return err_setc(e, ERR_NOT_FOUND, "inbox", "no inbox %lld", inbox_id);
	}
	f->lists = xstrdup(PQgetvalue(r, 0, 0));
	f->prefixes = xstrdup(PQgetvalue(r, 0, 1));
	f->paths = xstrdup(PQgetvalue(r, 0, 2));
	f->plan = dup_or_null(r, 0, 3);
	f->tree = dup_or_null(r, 0, 4);
	f->url = dup_or_null(r, 0, 5);
	f->branch = dup_or_null(r, 0, 6);
	f->maintainers = xstrdup(PQgetvalue(r, 0, 7));
	PQclear(r);
	return 0;
}

void db_inbox_filter_release(struct db_inbox_filter *f)
{
	free(f->lists);
	free(f->prefixes);
	free(f->paths);
	free(f->plan);
	free(f->tree);
	free(f->url);
	free(f->branch);
	free(f->maintainers);
	memset(f, 0, sizeof(*f));
}

int db_inbox_series_set(struct db_conn *c, long long id, const char *state, const char *reason,
			const char *base, const char *patch_ids, long long request_id,
			struct err *e)
{
	char b[24], q[24];
	const char *p[6] = { b, state, reason, base, patch_ids, request_id > 0 ? q : NULL };

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(q, sizeof(q), "%lld", request_id);
	return db_rows(c, ST_INBOX_SERIES_SET, 6, p, e) < 0 ? -1 : 0;
}

int db_inbox_series_retry(struct db_conn *c, long long id, const char *reason, int max_tries,
			  struct err *e)
{
	char b[24], m[24];
	const char *p[3] = { b, reason, m };
	PGresult *r;
	int ended;

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(m, sizeof(m), "%d", max_tries);
	r = db_exec(c, ST_INBOX_SERIES_RETRY, 3, p, e);
	if (!r)
		return -1;
	ended = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "failed");
	PQclear(r);
	return ended;
}

int db_inbox_series_dup(struct db_conn *c, long long id, const char *patch_ids, long long *dup,
			struct err *e)
{
	char b[24];
	const char *p[2] = { b, patch_ids };
	PGresult *r;
	int got;

	snprintf(b, sizeof(b), "%lld", id);
	r = db_exec(c, ST_INBOX_SERIES_DUP, 2, p, e);
	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	*dup = got ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
	PQclear(r);
	return got;
}

int db_inbox_series_dup_set(struct db_conn *c, long long id, long long dup, const char *patch_ids,
			    struct err *e)
{
	char b[24], d[24];
	const char *p[3] = { b, d, patch_ids };

	snprintf(b, sizeof(b), "%lld", id);
	snprintf(d, sizeof(d), "%lld", dup);
	return db_rows(c, ST_INBOX_SERIES_DUP_SET, 3, p, e) < 0 ? -1 : 0;
}

int db_inbox_series_json(struct db_conn *c, const char *name, char **text, struct err *e)
{
	const char *p[1] = { name };

	return db_json_text(c, ST_INBOX_SERIES_JSON, 1, p, text, e);
}

int db_inbox_request_adopt(struct db_conn *c, const char *label, const char *patches, long long *id,
			   struct err *e)
{
	const char *p[2] = { label, patches };
	PGresult *r = db_exec(c, ST_INBOX_REQUEST_ADOPT, 2, p, e);
	int got;

	if (!r)
		return -1;
	got = PQntuples(r) > 0;
	*id = got ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : 0;
	PQclear(r);
	return got;
}
