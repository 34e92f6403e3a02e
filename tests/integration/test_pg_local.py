"""deploy/pg-local in a new shell: without REGTRACK_PGPORT it finds the
cluster on the port the cluster was made with (from its postgresql.conf),
not on the default 54329."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from harness import PG_LOCAL, Cluster  # noqa: E402


class PgLocalPort(unittest.TestCase):

    def test_new_shell_finds_the_clusters_port(self):
        c = Cluster.get()
        self.assertNotEqual(c.port, "54329")
        env = {k: v for k, v in c.env.items() if k != "REGTRACK_PGPORT"}
        out = subprocess.run([PG_LOCAL, "url"], env=env, capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("port=%s " % c.port, out.stdout)
        out = subprocess.run([PG_LOCAL, "psql", "-X", "-tAq", "-c", "SELECT 41 + 1"], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout.strip()), (0, "42"), out.stderr)
        # the variable, when given, still wins
        out = subprocess.run([PG_LOCAL, "url"], env=dict(env, REGTRACK_PGPORT="23456"),
                             capture_output=True, text=True, timeout=60)
        self.assertIn("port=23456 ", out.stdout)


if __name__ == "__main__":
    unittest.main()
