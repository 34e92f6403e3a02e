"""What the bisect and mail tests share: git in a tree made by the test
(fixed author and dates, so shas are the same on every run) and a fake
worker that speaks the real worker protocol over HTTP (register, long-poll
lease, complete with result documents) and takes its values from the test."""
import os
import random
import subprocess
import tempfile
import threading
import time

from harness import Server, result_doc

AUTHOR = {"GIT_AUTHOR_NAME": "Dev One", "GIT_AUTHOR_EMAIL": "dev@example.org",
          "GIT_COMMITTER_NAME": "Dev One", "GIT_COMMITTER_EMAIL": "dev@example.org"}

# the machine a fake worker says it is (tbox_group vm-2p like the seeded runs)
MACHINE = {"hostname": "fake", "arch": "x86_64", "cpu_model": "fake", "nr_cpus": 2,
           "memory_mb": 2048, "tbox_group": "vm-2p"}


def git(repo, *args, date=None, env=None):
    """Runs git in repo (argv, 60 s timeout) and returns its stdout, stripped;
    date (ISO 8601) sets both author and committer dates."""
    e = dict(os.environ, **AUTHOR)
    if date:
        e.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    e.update(env or {})
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True,
                          text=True, timeout=60, env=e).stdout.strip()


def git_init(path):
    subprocess.run(["git", "init", "-q", "-b", "master", path], check=True, timeout=60)


def tree_server(prefix, make_tree, config="", dry_run=True, auto_bisect=0):
    """A temp dir holding a git tree made by make_tree(path) (returned as
    `tree`) and a server over a fresh database that bisects at once
    (bisect_share_pct 100, fast polls) with data_dir in the temp dir, and
    mails written to files in TMP/mail instead of sent unless dry_run is
    False; config: more `key = value` lines (a key there wins). auto_bisect:
    the key's value (0: these tests start their bisects themselves; None:
    the server's default, 1)
    Returns (tmp, repo, tree, srv); stop with stop_tree_server()."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    repo = os.path.join(tmp, "linux")
    tree = make_tree(repo)
    conf = os.path.join(tmp, "server.conf")
    with open(conf, "w") as f:
        f.write("data_dir = %s\nbisect_share_pct = 100\nbisect_poll_ms = 100\n"
                "mail_poll_ms = 100\n" % os.path.join(tmp, "data"))
        if auto_bisect is not None:
            f.write("auto_bisect = %d\n" % auto_bisect)
        if dry_run:
            f.write("mail_dry_run_dir = %s\n" % os.path.join(tmp, "mail"))
        f.write(config)
    return tmp, repo, tree, Server(extra_args=["--config", conf])


def stop_tree_server(srv, tmp):
    """Stops the server (the harness fails on a sanitizer report in its log),
    removes the temp dir and fails on a non-zero exit status."""
    rc = srv.stop()
    subprocess.run(["rm", "-rf", "--", tmp], timeout=60)
    assert rc == 0, "server exited %d" % rc


def wait_bisect_end(srv, bid, timeout):
    """Bisect bid's JSON once it is no longer queued or running, or as it
    stands after timeout seconds."""
    deadline = time.time() + timeout
    while True:
        b = srv.get("/api/v1/bisects/%d" % bid).json()
        if b["state"] not in ("queued", "running") or time.time() >= deadline:
            return b
        time.sleep(0.2)


class FakeWorker(threading.Thread):
    """Leases jobs until `stop` is set and completes each one.

    values(job, rng) -> {metric: [iteration values]} for one run; it is called
    job["repeat"] times. fail(job) -> None, or (status, log_tail) for a job
    that does not get as far as a run (e.g. "build-failed"). doc_extra: more
    fields of every result document (e.g. the guest description). `jobs`
    counts the jobs completed; rng is seeded by the worker's name.
    profile(job, rng) -> folded text: a job whose lease reply lists
    perf-profile in its monitors gets documents with those monitors and a
    profile (event cpu-clock), as the real worker posts them;
    without it, a small fixed-shape profile from a random stream of its own
    (the values' stream stays what it was before monitors existed).
    kconfig(job) -> text: the .config the job "built", stored with its
    completion (none without it)."""

    def __init__(self, srv, name, stop, values, fail=None, tree="demo", machine=None,
                 doc_extra=None, profile=None, kconfig=None):
        super().__init__(daemon=True)
        self.profile = profile or (lambda job, rng: "%s;fake_work %d\n" % (
            job["testcase"], 100 + self.profile_rng.randrange(10)))
        self.profile_rng = random.Random(name + "-profile")
        self.srv, self.name, self.stop = srv, name, stop
        self.values, self.fail, self.tree = values, fail, tree
        self.kconfig = kconfig
        self.machine_doc = dict(machine or MACHINE, hostname=name)
        self.doc_extra = doc_extra or {}
        self.rng = random.Random(name)
        self.jobs = 0
        r = srv.post("/api/v1/workers/register",
                     dict(self.machine_doc, capabilities=["qemu-x86_64"], fingerprint={}),
                     scope="worker")
        assert r.status == 200, r
        self.machine = r.json()["machine_id"]

    def body(self, job):
        failed = self.fail(job) if self.fail else None
        if failed:
            return {"machine_id": self.machine, "status": failed[0], "log_tail": failed[1]}
        docs = [result_doc(job["commit"], testcase=job["testcase"], job_id=job["id"],
                           params=job["params"], kconfig=job["kconfig"],
                           compiler=job["compiler"], tree=self.tree, machine=self.machine_doc,
                           metrics=self.values(job, self.rng), **self.doc_extra)
                for _ in range(job["repeat"])]
        if self.profile and "perf-profile" in job.get("monitors", []):
            for d in docs:
                folded = self.profile(job, self.rng)
                d["monitors"] = job["monitors"]
                d["profile"] = {"event": "cpu-clock", "folded": folded,
                                "samples": sum(int(x.rsplit(" ", 1)[1])
                                               for x in folded.splitlines())}
        out = {"machine_id": self.machine, "status": "ok", "results": docs, "log_tail": "ok\n"}
        if self.kconfig:
            out["kconfig"] = self.kconfig(job)
        return out

    def run(self):
        while not self.stop.is_set():
            r = self.srv.post("/api/v1/jobs/lease", {"machine_id": self.machine, "wait_s": 1},
                              scope="worker", timeout=30)
            if r.status != 200:
                continue
            job = r.json()["job"]
            r = self.srv.post("/api/v1/jobs/%d/complete" % job["id"], self.body(job),
                              scope="worker")
            assert r.status == 200, r
            self.jobs += 1
