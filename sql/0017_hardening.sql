-- Issue 20. A btree entry holds at most about 2,700 bytes: ~2.8 KB of
-- incompressible params failed the insert of a setup (a 500 quoting the
-- index). The unique key of setups now holds md5(params_key) (a collision
-- is a conflict, never a wrong match: lookups compare params_key itself,
-- through a hash index, which holds only hashes). Machines' key columns
-- are bounded where they come in (hostname 255, arch 64, tbox_group 128).
DO $$
DECLARE
	c text;
BEGIN
	FOR c IN SELECT conname FROM pg_constraint
		 WHERE conrelid = 'setups'::regclass AND contype = 'u' LOOP
		EXECUTE format('ALTER TABLE setups DROP CONSTRAINT %I', c);
	END LOOP;
END $$;
CREATE UNIQUE INDEX setups_key ON setups (testcase_id, md5(params_key), kconfig, compiler,
					  tbox_group, mode);
CREATE INDEX setups_params_key ON setups USING hash (params_key);

-- The worker token that registered a machine owns it: leases, heartbeats
-- and completions for it from another token are refused (NULL: a machine
-- registered before this migration, claimed by the next registration).
ALTER TABLE machines ADD COLUMN token_id bigint REFERENCES api_tokens(id);
