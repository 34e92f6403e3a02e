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
