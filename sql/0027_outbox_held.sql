-- regtrack schema, part 27: mails the server refuses to send as configured
-- (issue 30 items 10-11).
--
-- A row is 'held' when the mailer claims it while the configuration cannot
-- mail it (server/mailer.h, mailer_hold_reason: no smtp_url, or mail_from
-- or public_url still the defaults, which would end up in upstream commits
-- as Reported-by and Closes tags); last_error says why ("held: smtp_url not
-- set"). A held row was never rendered: a server started with a usable
-- configuration puts every held row back in the queue and renders it then,
-- with that configuration's sender and links.
ALTER TABLE outbox DROP CONSTRAINT outbox_state_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_state_check
	CHECK (state IN ('queued', 'held', 'sent', 'dry_run', 'failed', 'skipped'));
