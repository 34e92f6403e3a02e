-- regtrack schema, part 31: patches from a list.
--
-- An inbox is a public-inbox v2 archive (what lore.kernel.org serves: git
-- epochs 0.git, 1.git, ..., one message per commit, the message in blob
-- `m`) named by URL (http(s)://HOST/LIST, epochs at URL/N) or by path
-- (epochs at PATH/git/N.git). The poller (server/inbox_poll.c) follows it
-- as the tree poller follows trees: one server at a time (a session
-- advisory lock on the inbox's id), the error kept in poll_error, the
-- next poll backed off per failure.
CREATE TABLE inboxes (
	id               bigserial PRIMARY KEY,
	name             text NOT NULL UNIQUE,
	url              text NOT NULL,
	-- the filter: a message counts when it was sent to one of lists (To/Cc; none: any),
	-- its subject's bracket starts with one of subject_prefixes (none: PATCH), and its
	-- series touches a path under one of paths (none: any)
	lists            text[] NOT NULL DEFAULT '{}',
	subject_prefixes text[] NOT NULL DEFAULT '{}',
	paths            text[] NOT NULL DEFAULT '{}',
	plan             text,                  -- the plan a series is tested with
	cc_list          boolean NOT NULL DEFAULT false, -- replies Cc the list
	reply_no_change  boolean NOT NULL DEFAULT false, -- replies for no change too
	parts_wait_s     integer NOT NULL DEFAULT 3600 CHECK (parts_wait_s BETWEEN 0 AND 604800),
	poll_s           integer NOT NULL DEFAULT 300 CHECK (poll_s BETWEEN 0 AND 604800),
	next_poll_at     timestamptz NOT NULL DEFAULT now(),
	polls            bigint NOT NULL DEFAULT 0,
	last_poll_at     timestamptz,
	last_poll_ms     integer,
	poll_error       text,
	poll_failures    integer NOT NULL DEFAULT 0,
	created_at       timestamptz NOT NULL DEFAULT now()
);

-- The newest commit read of each epoch: the next poll reads the ones after it.
CREATE TABLE inbox_epochs (
	inbox_id    bigint NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
	epoch       integer NOT NULL CHECK (epoch >= 0),
	last_commit text NOT NULL CHECK (last_commit ~ '^[0-9a-f]{40}$'),
	messages    bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (inbox_id, epoch)
);

-- One message of an inbox: its headers as columns, its text as delivered.
-- A message is stored once per inbox (Message-ID), whatever epoch holds it.
CREATE TABLE inbox_messages (
	id          bigserial PRIMARY KEY,
	inbox_id    bigint NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
	epoch       integer NOT NULL,
	git_commit  text NOT NULL,
	message_id  text NOT NULL,   -- without the angle brackets
	in_reply_to text,
	refs        text[] NOT NULL DEFAULT '{}',
	subject     text NOT NULL DEFAULT '',
	author      text NOT NULL DEFAULT '',
	recipients  text NOT NULL DEFAULT '', -- To and Cc as sent
	sent_at     timestamptz,
	raw         text NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (inbox_id, message_id)
);
CREATE INDEX inbox_messages_irt ON inbox_messages (inbox_id, in_reply_to);

-- A patch series as assembled from its thread (server/inbox_series.c): the
-- cover letter (0/n) or patch 1 anchors it; one row per (inbox, anchor).
--   waiting       parts missing, until deadline (first part's arrival + parts_wait_s)
--   incomplete    the deadline passed with parts missing
--   filtered      the inbox's filter left it out (reason says which part of it)
--   not-applying  git am on the base failed (reason: git's message)
--   duplicate     the same patch-ids were queued before (duplicate_of)
--   queued        its A/B request (request_id) is queued or running
--   tested        the request ended (verdict)
--   replied       the reply went out in the thread (reply_outbox_id)
CREATE TABLE inbox_series (
	id              bigserial PRIMARY KEY,
	inbox_id        bigint NOT NULL REFERENCES inboxes(id) ON DELETE CASCADE,
	anchor          text NOT NULL,   -- Message-ID of the cover letter, or of patch 1
	cover           boolean NOT NULL DEFAULT false,
	version         integer NOT NULL DEFAULT 1,
	total           integer NOT NULL DEFAULT 1,
	resend          boolean NOT NULL DEFAULT false,
	title           text NOT NULL DEFAULT '',
	author          text NOT NULL DEFAULT '',
	state           text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'incomplete',
	                'filtered', 'not-applying', 'duplicate', 'queued', 'tested', 'replied')),
	reason          text,
	base_sha        text,
	patch_ids       text,            -- `git patch-id --stable` of each patch, sorted, joined
	previous_id     bigint REFERENCES inbox_series(id), -- v(N-1) of the same title
	duplicate_of    bigint REFERENCES inbox_series(id),
	request_id      bigint REFERENCES requests(id),
	verdict         text,
	reply_outbox_id bigint,
	deadline        timestamptz NOT NULL,
	created_at      timestamptz NOT NULL DEFAULT now(),
	updated_at      timestamptz NOT NULL DEFAULT now(),
	UNIQUE (inbox_id, anchor)
);
CREATE INDEX inbox_series_state ON inbox_series (state, deadline);
CREATE INDEX inbox_series_patch_ids ON inbox_series (inbox_id, patch_ids);

-- A patch message's place in its series; series_id NULL: not read yet, or
-- no patch (a reply, a review).
ALTER TABLE inbox_messages
	ADD COLUMN series_id bigint REFERENCES inbox_series(id),
	ADD COLUMN part      integer,
	ADD COLUMN assigned  boolean NOT NULL DEFAULT false;
CREATE INDEX inbox_messages_unassigned ON inbox_messages (inbox_id) WHERE NOT assigned;

-- A series' reply in its list thread: an outbox row of kind 'inbox' (rendered
-- by server/inbox_reply.c), at most one per series (the unique index), Cc'd
-- to the list when the inbox says so.
ALTER TABLE outbox DROP CONSTRAINT outbox_kind_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_kind_check
	CHECK (kind IN ('bisect', 'range', 'fixed', 'request', 'inbox'));
ALTER TABLE outbox
	ADD COLUMN inbox_series_id bigint REFERENCES inbox_series(id),
	ADD COLUMN cc              text[] NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX outbox_inbox_series ON outbox (inbox_series_id) WHERE inbox_series_id IS NOT NULL;
