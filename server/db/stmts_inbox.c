/* Statements of inboxes, their epochs, messages and polls (api/inboxes.c, inbox_poll.c); see
 * db.h and sql/0031. */
#include "server/db/stmts.h"

/* when an inbox is due for a poll */
#define INBOX_DUE "i.poll_s > 0 AND i.next_poll_at <= now()"
/* the advisory lock key of inbox $1's polls: one bigint (any id, no cast to integer), the
 * class 17033 in the high bits (the tree poller's two-integer keys are another space) */
#define INBOX_LOCK_KEY "((17033::bigint << 32) # $1::bigint)"

const struct db_stmt_def db_stmts_inbox[DB_NR_STMTS] = {
	/* every inbox with its filter, its last poll and what it holds */
	[ST_INBOXES_JSON] = { "inboxes_json",
			      "SELECT coalesce(json_agg(x ORDER BY x.name), '[]')::text FROM ("
			      "SELECT i.id, i.name, scrub_userinfo(i.url) AS url, i.lists, "
			      "i.subject_prefixes, i.paths, i.maintainers, i.plan, i.cc_list, i.reply_no_change, "
			      "i.parts_wait_s, i.poll_s, i.polls, i.last_poll_at, i.last_poll_ms, "
			      "i.poll_error, i.poll_failures, i.next_poll_at, i.since, i.started, "
			      "(SELECT count(*) FROM inbox_messages m WHERE m.inbox_id = i.id) AS messages, "
			      "(SELECT coalesce(json_agg(json_build_object('epoch', e.epoch, 'last_commit', "
			      "e.last_commit, 'messages', e.messages) ORDER BY e.epoch), '[]') "
			      "FROM inbox_epochs e WHERE e.inbox_id = i.id) AS epochs "
			      "FROM inboxes i) x" },
	/* $1 inbox name: its newest 1000 messages (a list's archive holds millions), oldest
	 * first, without their text; no row when no inbox has that name */
	[ST_INBOX_MESSAGES_JSON] = { "inbox_messages_json",
				     "SELECT (SELECT coalesce(json_agg(json_build_object('message_id', m.message_id, "
				     "'in_reply_to', m.in_reply_to, 'subject', m.subject, 'author', m.author, "
				     "'sent_at', m.sent_at, 'epoch', m.epoch, 'git_commit', m.git_commit) "
				     "ORDER BY m.id), '[]')::text FROM (SELECT m.* FROM inbox_messages m "
				     "JOIN inboxes i ON i.id = m.inbox_id WHERE i.name = $1 "
				     "ORDER BY m.id DESC LIMIT 1000) m) FROM inboxes WHERE name = $1" },
	/* $1 name $2 url $3 lists $4 subject_prefixes $5 paths $6 plan $7 cc_list
	 * $8 reply_no_change $9 parts_wait_s $10 poll_s $11 since (NULL: none) $12 maintainers
	 * (text[]): a new inbox,
	 * or a new filter for one (since only matters before its first poll) */
	[ST_INBOX_UPSERT] = { "inbox_upsert",
			      "INSERT INTO inboxes (name, url, lists, subject_prefixes, paths, plan, cc_list, "
			      "reply_no_change, parts_wait_s, poll_s, since, maintainers) VALUES ($1, $2, $3::text[], $4::text[], "
			      "$5::text[], $6, $7::boolean, $8::boolean, $9::integer, $10::integer, "
			      "$11::timestamptz, $12::text[]) "
			      "ON CONFLICT (name) DO UPDATE SET url = EXCLUDED.url, lists = EXCLUDED.lists, "
			      "subject_prefixes = EXCLUDED.subject_prefixes, paths = EXCLUDED.paths, "
			      "plan = EXCLUDED.plan, cc_list = EXCLUDED.cc_list, "
			      "reply_no_change = EXCLUDED.reply_no_change, parts_wait_s = EXCLUDED.parts_wait_s, "
			      "poll_s = EXCLUDED.poll_s, since = EXCLUDED.since, maintainers = EXCLUDED.maintainers, next_poll_at = now() RETURNING id" },
	[ST_INBOX_POLL_DUE] = { "inbox_poll_due", "SELECT i.id FROM inboxes i WHERE " INBOX_DUE
						  " ORDER BY i.next_poll_at, i.id LIMIT 32" },
	/* one poller per inbox across servers: a session lock, gone with a killed server's
	 * connection (and with a reconnect: ST_INBOX_POLL_HELD) */
	[ST_INBOX_POLL_LOCK] = { "inbox_poll_lock",
				 "SELECT pg_try_advisory_lock(" INBOX_LOCK_KEY ")" },
	[ST_INBOX_POLL_UNLOCK] = { "inbox_poll_unlock",
				   "SELECT pg_advisory_unlock(" INBOX_LOCK_KEY ")" },
	/* $1 inbox: whether this session holds its poll lock (a bigint key is classid:objid,
	 * objsubid 1) */
	[ST_INBOX_POLL_HELD] = { "inbox_poll_held",
				 "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND "
				 "pid = pg_backend_pid() AND granted AND objsubid = 1 AND "
				 "((classid::bigint << 32) | objid::bigint) = " INBOX_LOCK_KEY
				 ")" },
	/* $1 inbox, after the lock: still due? name, url, the poll's start, whether a poll
	 * ended well before, since (Unix seconds, "" none) */
	[ST_INBOX_POLL_CLAIM] = { "inbox_poll_claim",
				  "SELECT i.name, i.url, now()::text, i.started, "
				  "coalesce(floor(extract(epoch FROM i.since))::bigint::text, '') FROM inboxes i WHERE i.id = $1::bigint AND " INBOX_DUE },
	/* $1 inbox $2 duration (ms) $3 error (NULL: none): the next poll after poll_s, or
	 * after a backoff doubling per failure (at most 6 h) */
	[ST_INBOX_POLL_DONE] = { "inbox_poll_done",
				 "UPDATE inboxes SET polls = polls + 1, last_poll_at = now(), "
				 "last_poll_ms = $2::integer, poll_error = scrub_userinfo($3::text), "
				 "started = started OR $3::text IS NULL, "
				 "poll_failures = CASE WHEN $3::text IS NULL THEN 0 ELSE poll_failures + 1 END, "
				 "next_poll_at = CASE WHEN $3::text IS NULL THEN now() + make_interval(secs => poll_s) "
				 "ELSE now() + make_interval(secs => least(poll_s * "
				 "power(2, least(poll_failures, 16)), 21600)) END WHERE id = $1::bigint" },
	/* $1 inbox: epoch and newest commit read of each epoch */
	[ST_INBOX_EPOCHS] = { "inbox_epochs",
			      "SELECT epoch, last_commit FROM inbox_epochs WHERE inbox_id = $1::bigint "
			      "ORDER BY epoch" },
	/* $1 inbox $2 epoch $3 newest commit read $4 messages read now */
	[ST_INBOX_EPOCH_SET] = { "inbox_epoch_set",
				 "INSERT INTO inbox_epochs (inbox_id, epoch, last_commit, messages) "
				 "VALUES ($1::bigint, $2::integer, $3, $4::bigint) ON CONFLICT (inbox_id, epoch) "
				 "DO UPDATE SET last_commit = EXCLUDED.last_commit, "
				 "messages = inbox_epochs.messages + EXCLUDED.messages" },
	/* $1 inbox $2 epoch $3 commit $4 message_id $5 in_reply_to $6 refs $7 subject
	 * $8 author $9 recipients $10 sent_at (NULL: unknown) $11 raw (scrubbed) $12 its bytes
	 * in hex when they are not UTF-8 (NULL: raw is them): stored once per
	 * Message-ID; its id, none when it was there */
	[ST_INBOX_MESSAGE_INSERT] = { "inbox_message_insert",
				      "INSERT INTO inbox_messages (inbox_id, epoch, git_commit, message_id, "
				      "in_reply_to, refs, subject, author, recipients, sent_at, raw, raw_bytes) VALUES "
				      "($1::bigint, $2::integer, $3, $4, $5, $6::text[], $7, $8, $9, "
				      "$10::timestamptz, $11, decode($12, 'hex')) ON CONFLICT (inbox_id, message_id) DO NOTHING "
				      "RETURNING id" },
	/* series assembly (server/inbox/inbox_series.c) */
	/* $1 inbox: its messages not yet looked at, oldest first, at most 1000 */
	[ST_INBOX_UNASSIGNED] = { "inbox_unassigned",
				  "SELECT m.id, m.message_id, array_to_string(m.refs, ' '), m.subject, "
				  "m.recipients FROM inbox_messages m WHERE m.inbox_id = $1::bigint AND NOT "
				  "m.assigned ORDER BY m.id LIMIT 1000" },
	/* $1 inbox $2 Message-ID: its subject, no row when not stored */
	[ST_INBOX_MESSAGE_SUBJECT] = { "inbox_message_subject",
				       "SELECT subject FROM inbox_messages WHERE inbox_id = $1::bigint "
				       "AND message_id = $2" },
	/* $1 message row $2 series (NULL: no patch) $3 part */
	[ST_INBOX_MESSAGE_ASSIGN] = { "inbox_message_assign",
				      "UPDATE inbox_messages SET assigned = true, series_id = $2::bigint, "
				      "part = $3::integer WHERE id = $1::bigint" },
	/* $1 inbox $2 anchor $3 cover $4 version $5 total $6 resend $7 title $8 author
	 * $9 lead (the part is 0 or 1: its fields name the series): the series' id. The
	 * cover letter names the series whatever the order its parts came in: patch 1's
	 * fields are taken only while no cover letter is stored. */
	[ST_INBOX_SERIES_UPSERT] = { "inbox_series_upsert",
				     "INSERT INTO inbox_series (inbox_id, anchor, cover, version, total, resend, "
				     "title, author, deadline) VALUES ($1::bigint, $2, $3::boolean, $4::integer, "
				     "$5::integer, $6::boolean, $7, $8, now() + make_interval(secs => "
				     "(SELECT parts_wait_s FROM inboxes WHERE id = $1::bigint))) "
				     "ON CONFLICT (inbox_id, anchor) DO UPDATE SET "
				     "cover = inbox_series.cover OR EXCLUDED.cover, "
				     "version = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.version ELSE inbox_series.version END, "
				     "total = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.total ELSE inbox_series.total END, "
				     "resend = inbox_series.resend OR EXCLUDED.resend, "
				     "title = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.title ELSE inbox_series.title END, "
				     "author = CASE WHEN $9::boolean AND (EXCLUDED.cover OR NOT inbox_series.cover) "
				     "THEN EXCLUDED.author ELSE inbox_series.author END, "
				     "updated_at = now() RETURNING id" },
	/* $1 inbox: its waiting series (not backed off), whether each has all its parts,
	 * whether its deadline passed */
	[ST_INBOX_SERIES_WAITING] = { "inbox_series_waiting",
				      "SELECT s.id, s.anchor, s.version, s.title, "
				      "(SELECT count(DISTINCT m.part) FROM inbox_messages m WHERE m.series_id = s.id "
				      "AND m.part BETWEEN 1 AND s.total) = s.total, s.deadline < now() "
				      "FROM inbox_series s WHERE s.inbox_id = $1::bigint AND s.state = 'waiting' "
				      "AND (s.retry_at IS NULL OR s.retry_at <= now()) ORDER BY s.id" },
	/* $1 series $2 reason $3 tries at most: one more try failed for a reason that may
	 * pass; the next after the inbox's poll_s doubled per try (at most 6 h), none past
	 * the last ('failed'); the series' state */
	[ST_INBOX_SERIES_RETRY] = { "inbox_series_retry",
				    "UPDATE inbox_series s SET attempts = s.attempts + 1, reason = $2, "
				    "retry_at = now() + make_interval(secs => least(greatest(i.poll_s, 1) * "
				    "power(2, least(s.attempts, 16)), 21600)), state = CASE WHEN "
				    "s.attempts + 1 >= $3::integer THEN 'failed' ELSE s.state END, "
				    "updated_at = now() FROM inboxes i WHERE i.id = s.inbox_id AND "
				    "s.id = $1::bigint RETURNING s.state" },
	/* $1 series: the texts of its thread (its parts, the anchor, replies to any of them),
	 * oldest first, and the patch parts' text in part order for base-commit */
	[ST_INBOX_SERIES_THREAD] = { "inbox_series_thread",
				     "SELECT m.raw, m.series_id = s.id AND m.part BETWEEN 0 AND 1, "
				     "encode(m.raw_bytes, 'hex') FROM inbox_messages m "
				     "JOIN inbox_series s ON s.id = $1::bigint AND m.inbox_id = s.inbox_id "
				     "WHERE m.series_id = s.id OR m.message_id = s.anchor OR s.anchor = ANY(m.refs) "
				     "OR m.in_reply_to IN (SELECT x.message_id FROM inbox_messages x "
				     "WHERE x.series_id = s.id) ORDER BY m.id" },
	/* $1 inbox: its filter, each list one per line, and the plan's tree, url and first
	 * branch (NULL without a plan) */
	[ST_INBOX_FILTER] = { "inbox_filter",
			      "SELECT array_to_string(i.lists, E'\\n'), array_to_string(i.subject_prefixes, E'\\n'), "
			      "array_to_string(i.paths, E'\\n'), i.plan, t.name, t.url, "
			      "p.spec->'branches'->>0, array_to_string(i.maintainers, E'\\n') FROM inboxes i "
			      "LEFT JOIN plans p ON p.name = i.plan LEFT JOIN trees t ON t.id = p.tree_id "
			      "WHERE i.id = $1::bigint" },
	/* $1 series $2 state $3 reason $4 base $5 patch_ids $6 request (each NULL: keep) */
	[ST_INBOX_SERIES_SET] = { "inbox_series_set",
				  "UPDATE inbox_series SET state = $2, reason = coalesce($3, reason), "
				  "base_sha = coalesce($4, base_sha), patch_ids = coalesce($5, patch_ids), "
				  "request_id = coalesce($6::bigint, request_id), updated_at = now(), "
				  "previous_id = (SELECT p.id FROM inbox_series p WHERE p.inbox_id = "
				  "inbox_series.inbox_id AND p.title = inbox_series.title AND p.version < "
				  "inbox_series.version ORDER BY p.version DESC, p.id DESC LIMIT 1) "
				  "WHERE id = $1::bigint" },
	/* $1 series $2 patch_ids: the earlier series of its inbox with those patch-ids that
	 * was queued (none: no row) */
	[ST_INBOX_SERIES_DUP] = { "inbox_series_dup",
				  "SELECT p.id FROM inbox_series p JOIN inbox_series s ON s.id = $1::bigint "
				  "WHERE p.inbox_id = s.inbox_id AND p.id <> s.id AND p.patch_ids = $2 AND "
				  "p.state IN ('queued', 'tested', 'replied') ORDER BY p.id LIMIT 1" },
	/* $1 series $2 the series it repeats $3 their patch_ids */
	[ST_INBOX_SERIES_DUP_SET] = { "inbox_series_dup_set",
				      "UPDATE inbox_series SET state = 'duplicate', duplicate_of = $2::bigint, "
				      "patch_ids = $3, reason = 'the same patches as series ' || $2 || "
				      "' (patch-id)', updated_at = now() WHERE id = $1::bigint" },
	/* $1 label $2 patches: a request already queued for them (a server killed between
	 * queueing a series' request and recording it), none: no row */
	[ST_INBOX_REQUEST_ADOPT] = { "inbox_request_adopt",
				     "SELECT id FROM requests WHERE label = $1 AND patches = $2 "
				     "AND NOT EXISTS (SELECT 1 FROM inbox_series s WHERE s.request_id = requests.id) "
				     "ORDER BY id LIMIT 1" },
	/* $1 inbox name: its series, newest first; no row when no inbox has that name */
	[ST_INBOX_SERIES_JSON] = { "inbox_series_json",
				   "SELECT (SELECT coalesce(json_agg(json_build_object('id', s.id, 'anchor', s.anchor, "
				   "'cover', s.cover, 'version', s.version, 'total', s.total, 'resend', s.resend, "
				   "'title', s.title, 'author', s.author, 'state', s.state, 'reason', s.reason, "
				   "'base', s.base_sha, 'patch_ids', s.patch_ids, 'previous_id', s.previous_id, "
				   "'duplicate_of', s.duplicate_of, 'request_id', s.request_id, 'verdict', s.verdict, "
				   "'reply_outbox_id', s.reply_outbox_id, 'deadline', s.deadline, "
				   "'attempts', s.attempts, 'retry_at', s.retry_at, "
				   "'parts', (SELECT count(DISTINCT m.part) FROM inbox_messages m WHERE "
				   "m.series_id = s.id AND m.part BETWEEN 1 AND s.total), "
				   "'created_at', s.created_at, 'updated_at', s.updated_at) ORDER BY s.id DESC), "
				   "'[]')::text FROM inbox_series s JOIN inboxes i ON i.id = s.inbox_id "
				   "WHERE i.name = $1) FROM inboxes WHERE name = $1" },
	/* replies (server/inbox/inbox_reply.c) */
	/* $1 inbox: its queued series whose request ended: series, request state, verdict,
	 * fail_reason, whether the inbox replies on no change */
	[ST_INBOX_SERIES_ENDED] = { "inbox_series_ended",
				    "SELECT s.id, q.state, q.verdict, q.fail_reason, i.reply_no_change "
				    "FROM inbox_series s JOIN requests q ON q.id = s.request_id "
				    "JOIN inboxes i ON i.id = s.inbox_id WHERE s.inbox_id = $1::bigint AND "
				    "s.state = 'queued' AND q.state IN ('done', 'failed', 'cancelled') ORDER BY s.id" },
	/* $1 series: its one reply (none when it has one): the outbox row's id */
	[ST_INBOX_REPLY_QUEUE] = { "inbox_reply_queue",
				   "INSERT INTO outbox (kind, request_id, inbox_series_id) SELECT 'inbox', "
				   "s.request_id, s.id FROM inbox_series s WHERE s.id = $1::bigint "
				   "ON CONFLICT (inbox_series_id) WHERE inbox_series_id IS NOT NULL DO NOTHING RETURNING id" },
	/* $1 series $2 state $3 verdict $4 reason $5 reply outbox row (NULL: none) */
	[ST_INBOX_SERIES_ENDED_SET] = { "inbox_series_ended_set",
					"UPDATE inbox_series SET state = $2, verdict = $3, reason = coalesce($4, reason), "
					"reply_outbox_id = coalesce($5::bigint, reply_outbox_id), updated_at = now() "
					"WHERE id = $1::bigint" },
	/* $1 outbox row: what its reply needs: request, anchor, the anchor's subject and
	 * sender, the lists to Cc (one a line; "" none) */
	[ST_INBOX_REPLY_INPUT] = { "inbox_reply_input",
				   "SELECT s.request_id, s.anchor, coalesce(m.subject, s.title), "
				   "coalesce(m.author, s.author), CASE WHEN i.cc_list THEN "
				   "array_to_string(i.lists, E'\n') ELSE '' END, coalesce(s.verdict, ''), s.title "
				   "FROM outbox o JOIN inbox_series s ON s.id = o.inbox_series_id "
				   "JOIN inboxes i ON i.id = s.inbox_id LEFT JOIN inbox_messages m ON "
				   "m.inbox_id = s.inbox_id AND m.message_id = s.anchor WHERE o.id = $1::bigint" },
	/* $1 outbox row $2 its Cc addresses (text[] literal) */
	[ST_OUTBOX_SET_CC] = { "outbox_set_cc",
			       "UPDATE outbox SET cc = $2::text[] WHERE id = $1::bigint" },
};
