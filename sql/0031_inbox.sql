-- regtrack schema, part 31: patches from a list (issue 33).
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
