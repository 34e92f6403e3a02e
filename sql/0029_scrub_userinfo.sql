-- regtrack schema, part 29: a tree URL's credentials (https://user:token@host/…)
-- are needed to fetch, so trees.url keeps them, but no reply shows them
-- (issue 35 item 5): scrub_userinfo() turns the userinfo of every URL in a
-- text into ***, and the statements apply it to the tree list, poll errors
-- and what workers send (job messages, log tails, fail reasons), where git's
-- own messages can repeat the URL. Texts stored before this are scrubbed once.
CREATE FUNCTION scrub_userinfo(t text) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT regexp_replace(t, '([A-Za-z][A-Za-z0-9+.-]*://)[^/@[:space:]''"]+@', '\1***@', 'g') $$;

UPDATE trees SET poll_error = scrub_userinfo(poll_error) WHERE poll_error ~ '://[^/@]+@';
UPDATE jobs SET message = scrub_userinfo(message) WHERE message ~ '://[^/@]+@';
UPDATE jobs SET log_tail = scrub_userinfo(log_tail) WHERE log_tail ~ '://[^/@]+@';
UPDATE jobs SET fail_reason = scrub_userinfo(fail_reason) WHERE fail_reason ~ '://[^/@]+@';
