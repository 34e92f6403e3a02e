"""Issue 30 item 14: `make demo` shows a long first build as it goes.

deploy/demo's progress() is fed the API's replies (the shapes of GET
/api/v1/jobs, /api/v1/jobs/{id}, /api/v1/regressions and /api/v1/bisects)
at chosen times: a line when something changes, and while a job stays in
one phase (a kernel build: minutes) the same line again every PROGRESS_S
seconds with the time the phase has taken so far.
"""
import datetime
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import tempfile
import unittest
import unittest.mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
T = datetime.datetime(2026, 12, 5, 18, 0, 0, 415432, tzinfo=datetime.timezone.utc)


def load_demo():
    loader = importlib.machinery.SourceFileLoader("demo_script",
                                                  os.path.join(TOP, "deploy", "demo"))
    spec = importlib.util.spec_from_loader("demo_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def job(id_, state, phase, kconfig="x86_64-tiny-mm"):
    return {"id": id_, "state": state, "tree": "linux-demo", "commit": "ab" * 20,
            "kconfig": kconfig, "testcase": "small-allocs", "phase": phase,
            "progress": 0, "message": None, "tbox_group": "qemu-x86_64-tcg-2c"}


def at(s):
    return (T + datetime.timedelta(seconds=s)).isoformat()


class DemoProgress(unittest.TestCase):

    def setUp(self):
        self.demo = load_demo()
        self.tmp = tempfile.mkdtemp(prefix="demo-progress-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.demo.VAR = self.tmp
        self.demo.ARCHES = ["x86_64", "aarch64"]
        self.demo.PROGRESS_S = 30
        self.lines = []
        self.demo.log = self.lines.append
        self.jobs, self.history = [], {}
        self.demo.api = self.api

    def api(self, method, path, body=None, token=None, ok=None):
        self.assertEqual(method, "GET")
        if path.startswith("/api/v1/jobs?"):
            return 200, self.jobs
        if path.startswith("/api/v1/jobs/"):
            j = dict(next(j for j in self.jobs if j["id"] == int(path.rsplit("/", 1)[1])))
            j["phase_history"] = self.history[j["id"]]
            return 200, j
        if path.startswith("/api/v1/regressions"):
            return 200, []
        if path.startswith("/api/v1/bisects"):
            return 200, []
        raise AssertionError("unexpected GET " + path)

    def tick(self, state, s):
        n = len(self.lines)
        self.demo.progress({}, state, now=T.timestamp() + s)
        return self.lines[n:]

    def test_a_long_build_is_shown_as_it_goes(self):
        state = {}
        self.jobs = [job(1, "leased", "build"), job(2, "queued", "queued"),
                     job(3, "queued", "queued", kconfig="arm64-tiny-mm")]
        self.history = {1: [{"phase": "leased", "at": at(0), "attempt": 1, "machine_id": 1},
                            {"phase": "fetch", "at": at(1), "progress": 0, "message": ""},
                            {"phase": "build", "at": at(4), "progress": 0,
                             "message": "make -j2 x86_64-tiny-mm"}]}
        tail = "; aarch64 0/1 jobs; regressions 0, bisects -, mails 0"
        self.assertEqual(self.tick(state, 9),
                         ["x86_64 0/2 jobs now build 5s small-allocs@ababababab" + tail])
        # the same phase a few seconds later: nothing new to say yet
        self.assertEqual(self.tick(state, 14), [])
        self.assertEqual(self.tick(state, 38), [])
        # PROGRESS_S after the last line: the same line with the time taken so far
        self.assertEqual(self.tick(state, 39),
                         ["x86_64 0/2 jobs now build 35s small-allocs@ababababab" + tail])
        self.assertEqual(self.tick(state, 60), [])
        self.assertEqual(self.tick(state, 194),
                         ["x86_64 0/2 jobs now build 3m10s small-allocs@ababababab" + tail])
        # a new phase is news at once
        self.jobs[0]["phase"] = "boot"
        self.history[1].append({"phase": "boot", "at": at(200), "progress": 0,
                                "message": "boot 1/1 (tcg, icount)"})
        self.assertEqual(self.tick(state, 201),
                         ["x86_64 0/2 jobs now boot 1s small-allocs@ababababab" + tail])
        # nothing running: no repeats, only changes
        self.jobs[0].update(state="done", phase="done")
        self.assertEqual(self.tick(state, 230),
                         ["x86_64 1/2 jobs" + tail])
        self.assertEqual(self.tick(state, 400), [])

    def test_elapsed_format(self):
        f = self.demo.fmt_elapsed
        self.assertEqual([f(0), f(59), f(60), f(190), f(3599), f(3600), f(3720)],
                         ["0s", "59s", "1m00s", "3m10s", "59m59s", "1h00m", "1h02m"])
        self.assertIsNone(self.demo.phase_began({"phase_history": []}))
        self.assertIsNone(self.demo.phase_began(None))
        self.assertEqual(self.demo.phase_began({"phase_history": [{"at": at(5)}]}),
                         T.timestamp() + 5)


class DemoABRequest(unittest.TestCase):
    """The demo's A/B request is stored `resolving` (202) and followed to its verdict."""

    def test_followed_past_resolving(self):
        demo = load_demo()
        states = iter(["resolving", "queued", "running", "done", "done"])
        posted = []

        def api(method, p, body=None, token=None, ok=None):
            if method == "POST":
                posted.append(body)
                return 202, {"id": 7, "state": "resolving", "url": "/api/v1/requests/7"}
            st = next(states)
            return 200, {"id": 7, "state": st, "verdict": "improvement" if st == "done" else None}

        demo.api = api
        demo.run = lambda *a, **k: "From x\n"
        tree = {"improvement": "cd" * 20}
        # demo.time is the process's one time module: patched for this call only (assigned,
        # every later test of the run slept not at all)
        with unittest.mock.patch.object(demo.time, "sleep", lambda s: None):
            r = demo.ab_request(tree, {"admin": "t"}, "ab" * 20, demo.time.time() + 60)
        self.assertEqual(len(posted), 1)
        self.assertEqual((r["id"], r["state"], r["verdict"]), (7, "done", "improvement"))
        self.assertEqual(r["url"], demo.URL + "/api/v1/requests/7")


class Clock:
    """A clock for the demo's waits: sleep() moves it on at once."""

    def __init__(self, t):
        self.t0 = self.t = t

    def time(self):
        return self.t

    def sleep(self, s):
        self.t += s

    def iso(self, ahead):
        return datetime.datetime.fromtimestamp(self.t + ahead, datetime.timezone.utc).isoformat()


def rjob(id_, state, phase, tbox, runs=0, arch=None):
    """A job as GET /api/v1/requests/{id} lists it (an arch target's job has no
    tbox_group until a worker takes one: tbox None, arch given)."""
    return {"id": id_, "side": "base", "round": 1, "group": 0, "state": state, "phase": phase,
            "outcome": "ok" if state == "done" else None, "arch": arch or ARCH[tbox],
            "tbox_group": tbox, "kconfig": "x86_64-tiny-mm", "repeat": 5, "machine": None,
            "fail_reason": None, "progress": 0, "leased_at": None, "finished_at": None,
            "runs": runs}


X86, ARM = "qemu-x86_64-tcg-2c", "qemu-arm64-tcg-2c"
ARCH = {X86: "x86_64", ARM: "aarch64"}


class DemoJobWatch(unittest.TestCase):
    """The demo's A/B request and list series are followed by their jobs, not a
    clock: on a loaded 2-core box the request still ran after a fixed 20 min
    and ended `done` later. A live lease (heartbeats) or the queue ahead
    moving is progress; a request whose jobs stall is given up after
    STALL_MIN minutes, naming its jobs' states; WAIT_CAP_MIN caps it all."""

    def setUp(self):
        self.demo = load_demo()
        self.clock = Clock(T.timestamp())
        self.lines = []
        self.demo.log = self.lines.append
        self.demo.run = lambda *a, **k: "From x\n"
        self.demo.api = self.api
        self.tmp = tempfile.mkdtemp(prefix="demo-watch-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.demo.VAR = self.tmp
        self.timeline = None  # seconds since the start -> (request, leased jobs, series)

    def api(self, method, path, body=None, token=None, ok=None):
        req, leased, series = self.timeline(self.clock.t - self.clock.t0)
        if method == "POST" and path == "/api/v1/requests":
            return 202, {"id": 7, "state": "resolving", "url": "/api/v1/requests/7"}
        if method == "POST" and path == "/api/v1/inboxes":
            return 200, {"name": "demo-list"}
        self.assertEqual(method, "GET")
        if path == "/api/v1/requests/7":
            return 200, dict(req, id=7, url="/api/v1/requests/7")
        if path == "/api/v1/jobs?state=leased&limit=5000":
            return 200, leased
        if path == "/api/v1/inboxes/demo-list/series":
            return 200, series
        raise AssertionError("unexpected GET " + path)

    def lease(self, id_, tbox, machine, request=7):
        return {"id": id_, "state": "leased", "tbox_group": tbox, "arch": ARCH[tbox],
                "machine": machine, "lease_expires_at": self.clock.iso(120), "request": request}

    def follow(self, **consts):
        """ab_request as main_start calls it (no clock of its own), the time
        and the given constants patched for this call only."""
        with unittest.mock.patch.object(self.demo.time, "time", self.clock.time), \
                unittest.mock.patch.object(self.demo.time, "sleep", self.clock.sleep), \
                unittest.mock.patch.multiple(self.demo, **consts):
            return self.demo.ab_request({"improvement": "cd" * 20}, {"admin": "t"}, "ab" * 20)

    def test_followed_while_its_jobs_progress(self):
        # 0-60 s both queued; an arm64 bisect job (#90) holds that worker until 2400 s;
        # #11 builds for 30 min in one phase (heartbeats only), #12 runs after #90
        def timeline(t):
            bisect = [self.lease(90, ARM, "w-arm", request=None)] if t < 2400 else []
            if t < 60:
                return {"state": "queued", "jobs": [rjob(11, "queued", "queued", X86),
                                                    rjob(12, "queued", "queued", None,
                                                         arch="aarch64")]}, bisect, []
            j11 = rjob(11, "leased", "build", X86) if t < 1860 else rjob(11, "done", "done", X86, 5)
            j12 = (rjob(12, "queued", "queued", None, arch="aarch64") if t < 2400 else
                   rjob(12, "leased", "boot", ARM) if t < 3000 else
                   rjob(12, "done", "done", ARM, 5))
            leased = bisect + ([self.lease(11, X86, "w-x86")] if t < 1860 else []) + \
                ([self.lease(12, ARM, "w-arm")] if 2400 <= t < 3000 else [])
            done = t >= 3000
            return {"state": "done" if done else "running", "jobs": [j11, j12],
                    "verdict": "improvement" if done else None}, leased, []
        self.timeline = timeline
        r = self.follow(STALL_MIN=2)
        self.assertEqual((r["state"], r["verdict"], r["gave_up"]), ("done", "improvement", None))
        # followed to its end, 50 min in: past the 20 min the demo used to wait
        self.assertEqual(self.clock.t - self.clock.t0, 3000)
        running = "A/B request 7: running; jobs 0/2 finished; now #11 %s build" % X86
        self.assertIn(running, self.lines)
        # the same phase for 30 min: its lease says it goes on, every PROGRESS_S
        self.assertIn(running + " (job #11 leased by w-x86; no change for 30s)", self.lines)
        self.assertIn(running + " (job #11 leased by w-x86; no change for 29m30s)", self.lines)
        self.assertIn("A/B request 7: running; jobs 1/2 finished (job #12 queued behind "
                      "job #90 on aarch64; no change for 8m30s)", self.lines)
        self.assertEqual(self.lines[-1], "A/B request 7: done; jobs 2/2 finished")
        self.assertFalse([x for x in self.lines if "given up" in x])

    def test_given_up_when_its_jobs_stall(self):
        # #12's worker died (its lease expired: no heartbeat), #13 waits for a worker
        # nobody runs; nothing changes after 40 s
        def timeline(t):
            j11 = rjob(11, "leased", "build", X86) if t < 40 else rjob(11, "done", "done", X86, 5)
            dead = dict(self.lease(12, ARM, "w-arm"), lease_expires_at=self.clock.iso(-1))
            j13 = rjob(13, "queued", "queued", X86 + "-kvm", arch="x86_64")
            return {"state": "running", "jobs": [j11, rjob(12, "leased", "build", ARM), j13]}, \
                [dead] + ([self.lease(11, X86, "w-x86")] if t < 40 else []), []
        self.timeline = timeline
        r = self.follow(STALL_MIN=1.5)
        why = ("still running after 1.5 min without progress (DEMO_STALL_MIN: no job changed, "
               "none leased by a live worker)")
        self.assertEqual((r["state"], r["gave_up"]), ("running", why))
        # the last change at 40 s, given up STALL_MIN after it
        self.assertEqual(self.clock.t - self.clock.t0, 130)
        self.assertEqual(self.lines[-1], "A/B request 7: given up, %s; jobs: 1 done, "
                         "1 leased (#12 %s build), 1 queued (#13 %s-kvm)" % (why, ARM, X86))

    def test_capped_however_busy(self):
        def timeline(t):
            return {"state": "running", "jobs": [rjob(11, "leased", "build", X86)]}, \
                [self.lease(11, X86, "w-x86")], []
        self.timeline = timeline
        r = self.follow(STALL_MIN=1, WAIT_CAP_MIN=30)
        self.assertEqual(r["gave_up"], "still running at the 30 min cap (DEMO_WAIT_CAP_MIN)")
        self.assertEqual(self.clock.t - self.clock.t0, 1800)

    def series_test(self, timeline, reply=True, **consts):
        self.timeline = timeline
        self.demo.make_series = lambda improvement, tip: ["0000-cover.patch"]
        self.demo.deliver_series = lambda files: (os.path.join(self.tmp, "inbox"), "c@demo")
        os.makedirs(os.path.join(self.tmp, "mail"))
        with open(os.path.join(self.tmp, "mail", "0.eml"), "w") as f:
            f.write("Subject: [REGRESSION] an earlier report\n")
        if reply:
            with open(os.path.join(self.tmp, "mail", "1.eml"), "w") as f:
                f.write("Subject: Re: [PATCH 0/2] mm: faster small allocs\n"
                        "In-Reply-To: <c@demo>\n")
        with unittest.mock.patch.object(self.demo.time, "time", self.clock.time), \
                unittest.mock.patch.object(self.demo.time, "sleep", self.clock.sleep), \
                unittest.mock.patch.multiple(self.demo, **consts):
            return self.demo.inbox_series({"improvement": "cd" * 20}, {"admin": "t"}, "ab" * 20)

    def test_series_followed_by_its_requests_jobs(self):
        # the series waits for its parts, is queued as request 7, whose job builds
        # for 40 min (past the 30 min the demo used to wait) and ends; then the reply
        def timeline(t):
            s = {"anchor": "c@demo", "state": "waiting", "parts": 1, "attempts": 0,
                 "request_id": None, "verdict": None, "reason": None}
            if t >= 30:
                s.update(parts=2)
            if t >= 60:
                s.update(state="queued", request_id=7)
            job = rjob(11, "leased", "build", X86) if t < 2460 else rjob(11, "done", "done", X86, 5)
            if t >= 2500:
                s.update(state="replied", verdict="improvement")
            return {"state": "running", "jobs": [job]}, \
                [self.lease(11, X86, "w-x86")] if t < 2460 else [], [s]
        r = self.series_test(timeline, STALL_MIN=1)
        self.assertEqual((r["state"], r["verdict"], r["gave_up"]), ("replied", "improvement", None))
        self.assertEqual(r["reply_mail"], os.path.join(self.tmp, "mail", "1.eml"))
        self.assertEqual(self.clock.t - self.clock.t0, 2500)
        self.assertIn("inbox series <c@demo>: queued; jobs 0/1 finished; now #11 %s build" % X86,
                      self.lines)

    def test_series_given_up_when_it_stalls(self):
        def timeline(t):
            return {}, [], [{"anchor": "c@demo", "state": "waiting", "parts": 1, "attempts": 0,
                             "request_id": None, "reason": "1 of 2 patches"}]
        r = self.series_test(timeline, reply=False, STALL_MIN=2)
        self.assertEqual(self.clock.t - self.clock.t0, 120)
        self.assertEqual(self.lines[-1], "inbox series <c@demo>: given up, still waiting "
                         "(1 of 2 patches) after 2 min without progress (DEMO_STALL_MIN: no job "
                         "changed, none leased by a live worker); jobs: none")
        self.assertEqual((r["state"], r["reply_mail"]), ("waiting", None))


class DemoJobWatchServer(unittest.TestCase):
    """JobWatch on the real server's replies: a request's jobs (GET
    /api/v1/requests/{id}), the leases (GET /api/v1/jobs?state=leased, their
    lease_expires_at), a worker's lease as progress until it expires, then
    the wait given up with the jobs' states as the server names them."""

    def setUp(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from fakes import MACHINE, stop_tree_server, tree_server
        from harness import resolved, wait_until
        from test_requests import TC, make_tree
        tmp, _, self.tree, self.srv = tree_server("regtrack-demowatch-", make_tree,
                                                  "detect_enabled = 0\n")
        self.addCleanup(stop_tree_server, self.srv, tmp)
        srv = self.srv
        r = srv.post("/api/v1/trees", {"name": "demo", "url": os.path.join(tmp, "linux"),
                                       "branches": ["master"]}, scope="admin")
        self.assertEqual(r.status, 200, r)
        wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= 2], what="mirror")
        r = srv.post("/api/v1/workers/register", dict(
            MACHINE, hostname="w-x86", capabilities=["qemu-x86_64", "host"], fingerprint={}),
            scope="worker")
        self.assertEqual(r.status, 200, r)
        self.machine = r.json()["machine_id"]
        r = srv.post("/api/v1/requests", {
            "tree": "demo", "base": self.tree["c0"], "head": self.tree["c1"], "testcases": TC,
            "targets": ["x86_64"], "kconfig": "x86_64-defconfig", "repeat": 3}, scope="submit")
        self.rid = resolved(srv, r)["id"]
        self.addCleanup(srv.post, "/api/v1/requests/%d/cancel" % self.rid, scope="submit")
        self.demo = load_demo()
        self.demo.URL = srv.url
        self.lines = []
        self.demo.log = self.lines.append
        api = self.demo.api
        self.demo.api = lambda method, p, body=None, token=None, ok=(200, 201, 202, 204): \
            api(method, p, body, token or srv.tokens["read"], ok)

    def look(self):
        st, q = self.demo.api("GET", "/api/v1/requests/%d" % self.rid)
        self.assertEqual(st, 200, q)
        return q["state"], q["jobs"]

    def test_a_live_lease_is_progress_until_it_expires(self):
        demo = self.demo
        state, jobs = self.look()
        self.assertEqual((state, len(jobs), {j["state"] for j in jobs}), ("queued", 6, {"queued"}))
        ids = [j["id"] for j in jobs]
        # an arch target's jobs: no tbox_group until a worker of that arch takes one
        queued = ", ".join("#%d x86_64" % i for i in ids[:4])
        self.assertEqual(demo.jobs_states(jobs), "6 queued (%s, ...)" % queued)
        watch = demo.JobWatch("A/B request %d" % self.rid)
        now = demo.time.time()
        self.assertIsNone(watch.busy(jobs, now))  # queued, no worker busy anywhere
        r = self.srv.post("/api/v1/jobs/lease", {"machine_id": self.machine, "wait_s": 0},
                          scope="worker")
        self.assertEqual(r.status, 200, r)
        leased = r.json()["job"]["id"]
        self.assertEqual(leased, ids[0])
        state, jobs = self.look()
        self.assertEqual(state, "running")
        self.assertEqual(watch.busy(jobs, now), "job #%d leased by w-x86" % leased)
        # the server's lease (lease_timeout_s, 120 s by default), as the demo reads it
        _, listed = demo.api("GET", "/api/v1/jobs?state=leased&limit=5000")
        exp = demo.datetime.datetime.fromisoformat(listed[0]["lease_expires_at"]).timestamp()
        self.assertAlmostEqual(exp, now + 120, delta=30)
        self.assertIsNone(watch.busy(jobs, exp + 1))
        # followed while its lease is live; given up STALL_MIN after it was last seen live
        clock = Clock(now)
        with unittest.mock.patch.object(demo.time, "time", clock.time), \
                unittest.mock.patch.object(demo, "STALL_MIN", 1):
            self.assertIsNone(watch.check(state, jobs))
            clock.t = exp - 1
            self.assertIsNone(watch.check(state, jobs))
            clock.t = exp + 58
            self.assertIsNone(watch.check(state, jobs))
            clock.t = exp + 59
            why = watch.check(state, jobs)
        self.assertEqual(why, "still running after 1 min without progress (DEMO_STALL_MIN: no "
                         "job changed, none leased by a live worker)")
        # the lease pinned the request to the worker's tbox_group; phase `leased` is its state
        self.assertEqual(self.lines[-1], "A/B request %d: given up, %s; jobs: 1 leased (#%d vm-2p)"
                         ", 5 queued (%s, ...)" % (self.rid, why, leased,
                                                   ", ".join("#%d vm-2p" % i for i in ids[1:5])))

class DemoBaseline(unittest.TestCase):
    """Tracking starts at the tree's baseline, the munmap debug accounting: pushed
    from the base, it is a regression of its own (bisected before the injected one)."""

    def test_first_push_is_the_baseline(self):
        demo = load_demo()
        tree = {"base": "b" * 40, "baseline": "1" * 40,
                "commits": [{"sha": "1" * 40}, {"sha": "2" * 40}, {"sha": "3" * 40}]}
        commits = [tree["base"]] + [c["sha"] for c in tree["commits"]]
        self.assertEqual(demo.baseline_position(tree, commits), 1)
        del tree["baseline"]
        self.assertEqual(demo.baseline_position(tree, commits), 0)


if __name__ == "__main__":
    unittest.main()
