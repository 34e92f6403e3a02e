"""The kernel tree the inbox fixtures (tests/fixtures/inbox) apply to, and
a real public-inbox v2 archive of them: public-inbox-init, then each
message delivered with public-inbox-mda, as a list server would."""
import os
import subprocess
import urllib.error

AUTHOR = {"GIT_AUTHOR_NAME": "Dev One", "GIT_AUTHOR_EMAIL": "dev@example.org",
          "GIT_COMMITTER_NAME": "Dev One", "GIT_COMMITTER_EMAIL": "dev@example.org"}
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "fixtures", "inbox")
LIST = "linux-mm@kvack.org"


def git(repo, *args, date=None):
    """git in repo (argv, 60 s timeout) -> stdout without its last newline."""
    e = dict(os.environ, **AUTHOR)
    if date:
        e.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    out = subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True,
                         text=True, timeout=60, env=e).stdout
    return out[:-1] if out.endswith("\n") else out


def make_base(repo):
    """A tree with one commit (mm.c "int x;", fixed author and date): its sha."""
    subprocess.run(["git", "init", "-q", "-b", "master", repo], check=True, timeout=60)
    with open(os.path.join(repo, "mm.c"), "w") as f:
        f.write("int x;\n")
    git(repo, "add", "mm.c")
    git(repo, "commit", "-q", "-m", "mm: base", date="2026-01-01T00:00:00Z")
    return git(repo, "rev-parse", "HEAD")


def fixtures(names=None):
    """The fixture files in posting order (all, or those whose name has one of names)."""
    fs = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".eml"))
    if names is not None:
        fs = [f for f in fs if any(n in f for n in names)]
    return [os.path.join(FIXTURES, f) for f in fs]


def make_inbox(path, name="linux-mm"):
    """A new, empty public-inbox v2 archive at path in its own PI_CONFIG;
    returns the environment that delivers to it."""
    env = dict(os.environ, PI_CONFIG=os.path.join(path + ".config"),
               PI_DIR=path + ".pi", HOME=os.path.dirname(path))
    subprocess.run(["public-inbox-init", "-V2", name, path, "http://example.org/" + name,
                    LIST], check=True, capture_output=True, timeout=120, env=env)
    # no spam filter on a test's list (public-inbox-mda asks spamc otherwise)
    subprocess.run(["git", "config", "-f", env["PI_CONFIG"], "publicinboxmda.spamcheck", "none"],
                   check=True, timeout=60)
    return env


def deliver(path, env, files):
    """Delivers each file to the inbox at path as the list server would
    (public-inbox-mda, one message a commit in the epoch repos)."""
    e = dict(env, ORIGINAL_RECIPIENT=LIST)
    for f in files:
        with open(f, "rb") as m:
            subprocess.run(["public-inbox-mda", "--no-precheck"], stdin=m, check=True,
                           capture_output=True, timeout=120, env=e)


def free_port():
    """A loopback TCP port nothing listens on now."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Httpd:
    """public-inbox-httpd serving the inboxes of env's PI_CONFIG on loopback,
    as lore serves them (a v2 inbox's epochs clone from URL/N)."""

    def __init__(self, env, port=None):
        self.env, self.port = env, port or free_port()
        self.proc = None
        self.start()

    def start(self):
        import time
        import urllib.request
        self.log = open(self.env["PI_CONFIG"] + ".httpd.log", "ab")
        self.proc = subprocess.Popen(["public-inbox-httpd", "-W0", "-l",
                                      "http://127.0.0.1:%d" % self.port],
                                     stdout=self.log, stderr=self.log, env=self.env)
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/" % self.port, timeout=5).read()
                return
            except urllib.error.HTTPError:
                return  # it answers
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("public-inbox-httpd did not start")
                time.sleep(0.1)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        self.log.close()
