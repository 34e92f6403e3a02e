"""Issue 30 item 12: the README's walkthrough runs as written.

The fenced blocks between `<!-- walkthrough:begin -->` and
`<!-- walkthrough:end -->` are the steps: each ```sh block is run, and the
```text block right after it (none: no output) is what it must print,
stdout and stderr together, line by line; `…` inside a line stands for any
text, a line of `…` alone for any number of lines.

How they run: each block is a file run by bash with `set -e -o pipefail`
(stricter than a pasting person's shell, never looser), in a temporary
directory laid out like a checkout (bin/ holds copies of REGTRACK_BIN's
programs, whose cases/ and web/ are found beside them; deploy/ is the
checkout's), stdin /dev/null, in its own session, under a time limit after
which its whole process group is killed. What one block exports is what the
next block starts with (a person pastes them into one shell). The server and
the worker the blocks start in the background are stopped by the last block;
the test then checks their logs for sanitizer reports, and kills what is
left of every block's session and stops the cluster whatever happened.

Substitutions, and only these: the server's port 8080 (in "127.0.0.1:8080")
and PostgreSQL's 54329 (in "port=54329") become free ports, and
REGTRACK_PGPORT is set to that port (deploy/pg-local's own variable):
another server or cluster of this machine may hold the defaults. The
cluster is the walkthrough's own `deploy/pg-local start` in the temporary
directory, not the harness's.
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, TOP  # noqa: E402

README = os.path.join(TOP, "README.md")
CASES = os.environ.get("REGTRACK_CASES", os.path.join(TOP, "bin", "cases"))
BLOCK_TIMEOUT_S = 300
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def walkthrough_steps(text):
    """[(commands, expected output)] of the README text's walkthrough."""
    m = re.search(r"<!-- walkthrough:begin -->\n(.*?)<!-- walkthrough:end -->", text, re.S)
    if not m:
        raise AssertionError("README.md has no walkthrough markers")
    blocks = re.findall(r"^```(\w*)\n(.*?)^```$", m.group(1), re.M | re.S)
    steps = []
    for kind, body in blocks:
        if kind == "sh":
            steps.append([body, ""])
        elif kind == "text" and steps and steps[-1][1] == "":
            steps[-1][1] = body
        else:
            raise AssertionError("a ```%s block not right after a ```sh block:\n%s"
                                 % (kind, body))
    return [tuple(s) for s in steps]


def output_matches(expected, actual):
    """Whether actual (lines, trailing blanks ignored) is expected with its `…`s."""
    pat = ""
    for line in expected.rstrip().splitlines():
        line = line.rstrip()
        if line == "…":
            pat += r"(?:[^\n]*\n)*?"
        else:
            pat += "[^\n]*".join(re.escape(p) for p in line.split("…")) + r"\n"
    lines = [ln.rstrip() for ln in actual.rstrip().splitlines()]
    text = "\n".join(lines) + "\n" if lines else ""
    return re.fullmatch(pat, text) is not None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Matching(unittest.TestCase):
    """The matcher itself: a test that cannot fail is no test."""

    def test_wildcards(self):
        self.assertTrue(output_matches("a …z\nb\n", "a xyz\nb\n"))
        self.assertFalse(output_matches("a …z\nb\n", "a xyz\nc\n"))
        self.assertTrue(output_matches("a\n…\nz\n", "a\nz\n"))
        self.assertTrue(output_matches("a\n…\nz\n", "a\n1\n2\nz\n"))
        self.assertFalse(output_matches("a\n…\nz\n", "a\n1\n"))
        self.assertFalse(output_matches("", "anything\n"))
        self.assertTrue(output_matches("", "\n"))
        self.assertFalse(output_matches("job 1: … upload progress=1",
                                        "job 1: 12:00 upload message= progress=1x"))

    def test_steps_pair_commands_with_their_output(self):
        text = ("x\n<!-- walkthrough:begin -->\n```sh\na\n```\n```text\n1\n```\n"
                "```sh\nb\n```\n```sh\nc\n```\n```text\n3\n```\n<!-- walkthrough:end -->\n")
        self.assertEqual(walkthrough_steps(text), [("a\n", "1\n"), ("b\n", ""), ("c\n", "3\n")])


class Walkthrough(unittest.TestCase):

    def setUp(self):
        # searchable by others, as a checkout is, and so are its parents (not
        # REGTRACK_TEST_TMP, 0700): pg-local as root would chmod them and say so
        self.tmp = tempfile.mkdtemp(prefix="regtrack-walk-")
        os.chmod(self.tmp, 0o755)
        os.makedirs(os.path.join(self.tmp, "bin"))
        os.makedirs(os.path.join(self.tmp, "home"))
        for p in ("regtrack", "regtrack-server", "regtrack-worker"):
            shutil.copy2(os.path.join(BIN, p), os.path.join(self.tmp, "bin", p))
        os.symlink(os.path.abspath(CASES), os.path.join(self.tmp, "bin", "cases"))
        os.symlink(os.path.join(TOP, "web"), os.path.join(self.tmp, "web"))
        os.symlink(os.path.join(TOP, "deploy"), os.path.join(self.tmp, "deploy"))
        self.port, self.pg_port = free_port(), free_port()
        keep = ("PATH", "LANG", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TMPDIR")
        self.env = {k: os.environ[k] for k in keep if k in os.environ}
        self.env.update(HOME=os.path.join(self.tmp, "home"), REGTRACK_PGPORT=str(self.pg_port))
        self.sessions = []
        self.addCleanup(self.cleanup)

    def cleanup(self):
        for pgid in self.sessions:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(pgid, sig)
                except ProcessLookupError:
                    break
                time.sleep(0.5)
        subprocess.run([os.path.join(self.tmp, "deploy", "pg-local"), "stop"], env=self.env,
                       cwd=self.tmp, capture_output=True, timeout=120)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def substitute(self, text):
        return (text.replace("127.0.0.1:8080", "127.0.0.1:%d" % self.port)
                .replace("port=54329", "port=%d" % self.pg_port))

    def run_block(self, n, commands):
        script = os.path.join(self.tmp, ".walk-%d.sh" % n)
        state = os.path.join(self.tmp, ".walk-env")
        with open(script, "w") as f:
            f.write("set -e -o pipefail\n[ ! -f %s ] || . %s\n%s\nexport -p >%s\n"
                    % (state, state, commands, state))
        proc = subprocess.Popen(["bash", script], cwd=self.tmp, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.sessions.append(proc.pid)
        try:
            out, _ = proc.communicate(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            self.fail("step %d ran over %d s:\n%s\noutput:\n%s"
                      % (n, BLOCK_TIMEOUT_S, commands, out.decode(errors="replace")))
        return proc.returncode, out.decode(errors="replace")

    def wait_gone(self, pidfile):
        with open(os.path.join(self.tmp, pidfile)) as f:
            pid = int(f.read())
        end = time.time() + 60
        while os.path.exists("/proc/%d" % pid) and time.time() < end:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
            time.sleep(0.2)
        self.assertFalse(os.path.exists("/proc/%d" % pid), "%s still runs" % pidfile)

    def test_readme_walkthrough_as_written(self):
        with open(README) as f:
            steps = walkthrough_steps(f.read())
        self.assertGreaterEqual(len(steps), 8)
        for n, (commands, expected) in enumerate(steps, 1):
            commands, expected = self.substitute(commands), self.substitute(expected)
            rc, out = self.run_block(n, commands)
            self.assertEqual(rc, 0, "step %d exited %d:\n%s\noutput:\n%s"
                             % (n, rc, commands, out))
            self.assertTrue(output_matches(expected, out),
                            "step %d:\n%s\nexpected:\n%s\nprinted:\n%s"
                            % (n, commands, expected, out))
        # the last step stopped them: a sanitizer report at exit is a failure too
        for name in ("server", "worker"):
            self.wait_gone(os.path.join("var", "walk", name + ".pid"))
            logf = os.path.join(self.tmp, "var", "walk", name + ".log")
            with open(logf, errors="replace") as f:
                log = f.read()
            for mark in SANITIZER_MARKS:
                self.assertNotIn(mark, log, "%s.log:\n%s" % (name, log[-4000:]))


if __name__ == "__main__":
    unittest.main()
