"""Job queue and worker protocol: lease, heartbeat, complete, expiry, long poll."""
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha, wait_until  # noqa: E402


def register(srv, host, arch="x86_64", caps=("host",), tbox="vm-2p"):
    r = srv.post("/api/v1/workers/register", {
        "hostname": host, "arch": arch, "tbox_group": tbox, "nr_cpus": 2, "memory_mb": 2048,
        "cpu_model": "test", "capabilities": list(caps),
        "fingerprint": {"kernel_release": "6.1.0", "smt": "off"}}, scope="worker")
    assert r.status == 200, r
    return r.json()["machine_id"]


def host_job(srv, commit, **kw):
    body = {"commit": commit, "kconfig": "host", "testcase": "small-allocs",
            "params": {"nr_task": 1, "runtime": 1}, "repeat": 2}
    body.update(kw)
    r = srv.post("/api/v1/jobs", body, scope="submit")
    assert r.status == 201, r
    return r.json()["id"]


def docs_for(job, commit, n=2, testcase="small-allocs"):
    return [result_doc(commit, testcase=testcase, job_id=job["id"],
                       params=job["params"], kconfig="host",
                       metrics={"small-allocs.throughput": [1000.0 + i]}) for i in range(n)]


class ServerCase(unittest.TestCase):
    """A test class with a server of its own (SERVER_ARGS) for its tests."""
    SERVER_ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.srv = Server(extra_args=list(cls.SERVER_ARGS))

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()


class Protocol(ServerCase):

    def lease(self, machine, wait_s=0):
        return self.srv.post("/api/v1/jobs/lease", {"machine_id": machine, "wait_s": wait_s},
                             scope="worker")

    def test_queued_leased_done_with_runs_stored(self):
        srv = self.srv
        m = register(srv, "w-happy")
        jid = host_job(srv, sha("1"))
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["state"], "queued")
        r = self.lease(m)
        self.assertEqual(r.status, 200, r)
        job = r.json()["job"]
        self.assertEqual((job["id"], job["commit"], job["kconfig"], job["repeat"]),
                         (jid, sha("1"), "host", 2))
        self.assertEqual(job["params"], {"nr_task": 1, "runtime": 1})
        got = srv.get("/api/v1/jobs/%d" % jid).json()
        self.assertEqual((got["state"], got["attempts"], got["machine"]), ("leased", 1, "w-happy"))
        for phase in ("run", "upload"):
            r = srv.post("/api/v1/jobs/%d/heartbeat" % jid,
                         {"machine_id": m, "phase": phase, "progress": 0.5, "message": "x"},
                         scope="worker")
            self.assertEqual(r.status, 200, r)
            self.assertIn("lease_expires_at", r.json())
        docs = docs_for(job, sha("1"))
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": docs, "log_tail": "done\n",
                      "kconfig": None}, scope="worker")
        self.assertEqual(r.status, 200, r)
        got = srv.get("/api/v1/jobs/%d" % jid).json()
        self.assertEqual((got["state"], got["outcome"]), ("done", "ok"))
        self.assertEqual(got["runs"], [d["run_id"] for d in docs])
        self.assertEqual([p["phase"] for p in got["phase_history"]],
                         ["leased", "run", "upload", "done"])
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "2")
        run = srv.get("/api/v1/runs/" + docs[1]["run_id"]).json()
        self.assertEqual(run["metrics"], {"small-allocs.throughput": [1001.0]})
        self.assertEqual(run["job_id"], jid)
        # a retried complete (first reply lost) is acknowledged, not doubled
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": docs}, scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertTrue(r.json()["already"])
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "2")

    def test_machine_shape_asked_and_got(self):
        """A job names its machine with the params the worker reads itself
        (lib/vmspec.h): the job, the lease and the run keep what was asked,
        and the run also shows what the worker got (its accel, the CPUs the
        case saw and the guest qemu was given, as worker/execute.c writes)."""
        srv = self.srv
        srv.post("/api/v1/trees", {"name": "linux", "url": "/srv/linux.git"}, scope="admin")
        # a tbox_group of its own: no other test's job is leased here
        m = register(srv, "w-shape", caps=("qemu-x86_64",), tbox="vm-shape")
        shape = {"nr_task": 4, "accel": "tcg", "vcpus": 4, "pin": True}
        r = srv.post("/api/v1/jobs", {"tree": "linux", "commit": sha("7"),
                                      "kconfig": "x86_64-defconfig", "testcase": "small-allocs",
                                      "params": shape, "tbox_group": "vm-shape"},
                     scope="submit")
        self.assertEqual(r.status, 201, r)
        jid = r.json()["id"]
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["params"], shape)
        r = self.lease(m)
        self.assertEqual(r.status, 200, r)
        job = r.json()["job"]
        self.assertEqual((job["id"], job["params"]), (jid, shape))
        guest = {"arch": "x86_64", "nr_cpus": 4, "memory_mb": 512, "accel": "tcg",
                 "icount": False, "cpu_model": "qemu64", "pinned": [0, 0, 1, 1],
                 "hugepages": None, "numa": None}
        doc = result_doc(sha("7"), testcase="small-allocs", job_id=jid, params=job["params"],
                         kconfig="x86_64-defconfig", accel="tcg", cpus=4, guest=guest,
                         machine={"hostname": "w-shape", "arch": "x86_64", "cpu_model": "test",
                                  "nr_cpus": 2, "memory_mb": 2048, "tbox_group": "vm-shape"},
                         metrics={"small-allocs.throughput": [1000.0]})
        # and a run from a worker that recorded none of it
        older = result_doc(sha("7"), testcase="small-allocs", job_id=jid, params=job["params"],
                           kconfig="x86_64-defconfig",
                           machine={"hostname": "w-shape", "arch": "x86_64", "cpu_model": "test",
                                    "nr_cpus": 2, "memory_mb": 2048, "tbox_group": "vm-shape"},
                           metrics={"small-allocs.throughput": [1001.0]})
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": [doc, older]}, scope="worker")
        self.assertEqual(r.status, 200, r)
        run = srv.get("/api/v1/runs/" + doc["run_id"]).json()
        self.assertEqual(run["job_id"], jid)
        self.assertEqual(run["params"], shape)
        self.assertEqual(run["extra"]["guest"], guest)
        self.assertEqual((run["extra"]["accel"], run["extra"]["cpus"]), ("tcg", 4))
        # the job says what each of its runs got, in one reply read without a token (the
        # job page reads no run); a run whose worker recorded none says null
        got = srv.get("/api/v1/jobs/%d" % jid).json()
        self.assertEqual(got["runs"], [doc["run_id"], older["run_id"]])
        self.assertEqual(got["run_guests"], {
            doc["run_id"]: {"accel": "tcg", "cpus": 4, "guest": guest},
            older["run_id"]: {"accel": None, "cpus": None, "guest": None}})

    def test_completion_with_a_new_tree_shows_in_trees_at_once(self):
        # GET /api/v1/trees is cached for a second; a job's runs that add a
        # tree (or a commit to one) must drop that cached reply, as POST
        # /api/v1/results does (ingest_committed)
        srv = self.srv
        m = register(srv, "w-trees")
        jid = host_job(srv, sha("7"))
        job = self.lease(m).json()["job"]
        names = [t["name"] for t in srv.get("/api/v1/trees").json()]
        self.assertNotIn("tree-of-a-job", names)
        docs = [dict(d, tree="tree-of-a-job") for d in docs_for(job, sha("7"), n=1)]
        before = srv.get("/metrics").body
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": docs}, scope="worker")
        self.assertEqual(r.status, 200, r)
        trees = {t["name"]: t for t in srv.get("/api/v1/trees").json()}
        self.assertIn("tree-of-a-job", trees)
        self.assertEqual(trees["tree-of-a-job"]["commits"], 1)

        def ingested(text):
            return int(next(x for x in text.splitlines()
                            if x.startswith("regtrack_ingested_values_total ")).split()[1])
        self.assertEqual(ingested(srv.get("/metrics").body) - ingested(before), 1)

    def test_other_machine_complete_is_409_and_stores_nothing(self):
        srv = self.srv
        m1, m2 = register(srv, "w-owner"), register(srv, "w-thief")
        jid = host_job(srv, sha("2"), tbox_group="only-owner")
        srv.psql("UPDATE machines SET tbox_group = 'only-owner' WHERE id = %d" % m1)
        job = self.lease(m1).json()["job"]
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m2, "status": "ok", "results": docs_for(job, sha("2"))},
                     scope="worker")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(r.json()["error"]["code"], "lease_lost")
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m2, "phase": "run"},
                     scope="worker")
        self.assertEqual(r.status, 409)
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "0")
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["state"], "leased")

    def test_build_failure_is_done_with_outcome_and_log(self):
        srv = self.srv
        m = register(srv, "w-kernel", caps=("qemu-x86_64",))
        srv.post("/api/v1/trees", {"name": "linux", "url": "/srv/linux.git",
                                   "branches": ["master"]}, scope="admin")
        r = srv.post("/api/v1/jobs", {"tree": "linux", "commit": sha("3"),
                                      "kconfig": "x86_64-tiny-mm", "testcase": "execl"},
                     scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["capability"], "qemu-x86_64")
        jid = r.json()["id"]
        job = self.lease(m).json()["job"]
        self.assertEqual((job["id"], job["url"], job["branch"]), (jid, "/srv/linux.git", "master"))
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "build-failed",
                      "log_tail": "mm/mmap.c:12: error: expected ';'\n",
                      "kconfig": "CONFIG_MMU=y\n"}, scope="worker")
        self.assertEqual(r.status, 200, r)
        got = srv.get("/api/v1/jobs/%d" % jid).json()
        self.assertEqual((got["state"], got["outcome"]), ("done", "build-failed"))
        self.assertIn("expected ';'", got["log_tail"])
        self.assertEqual(srv.get("/api/v1/jobs/%d/kconfig" % jid).body, "CONFIG_MMU=y\n")

    def test_matching_by_arch_and_capability(self):
        srv = self.srv
        srv.post("/api/v1/trees", {"name": "linux", "url": "/srv/linux.git"}, scope="admin")
        arm = register(srv, "w-arm-only", arch="aarch64", caps=("qemu-aarch64",), tbox="arm-box")
        r = srv.post("/api/v1/jobs", {"tree": "linux", "commit": sha("4"),
                                      "kconfig": "x86_64-tiny-mm", "testcase": "execl",
                                      "tbox_group": "nowhere"}, scope="submit")
        self.assertEqual(r.status, 201)
        self.assertEqual(self.lease(arm).status, 204)

    def test_bad_requests(self):
        srv = self.srv
        r = srv.post("/api/v1/jobs", {"commit": "abc", "kconfig": "host", "testcase": "x"},
                     scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "commit"))
        r = srv.post("/api/v1/jobs", {"commit": sha("5"), "kconfig": "x86_64-tiny-mm",
                                      "testcase": "x", "tree": "no-such-tree"}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "tree"))
        r = srv.post("/api/v1/jobs", {"commit": sha("5"), "kconfig": "host", "testcase": "x",
                                      "repeat": 0}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "repeat"))
        r = srv.post("/api/v1/jobs", {"commit": sha("5"), "kconfig": "host", "testcase": "x"},
                     scope="read")
        self.assertEqual(r.status, 403)
        r = srv.post("/api/v1/jobs/lease", {"machine_id": 999999}, scope="worker")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "machine_id"))
        r = srv.post("/api/v1/jobs/lease", {"machine_id": 1, "wait_s": 61}, scope="worker")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "wait_s"))
        r = srv.post("/api/v1/jobs/lease", {"machine_id": 1}, scope="submit")
        self.assertEqual(r.status, 403)
        # a job or bisect that does not exist is 404, not "lease lost" / "not running"
        m = register(srv, "w-404")
        r = srv.post("/api/v1/jobs/999999/heartbeat", {"machine_id": m, "phase": "run"},
                     scope="worker")
        self.assertEqual((r.status, r.json()["error"]["code"]), (404, "not_found"), r)
        r = srv.post("/api/v1/jobs/999999/complete",
                     {"machine_id": m, "status": "run-failed", "results": [], "log_tail": ""},
                     scope="worker")
        self.assertEqual((r.status, r.json()["error"]["code"]), (404, "not_found"), r)
        r = srv.post("/api/v1/bisects/999999/cancel", {}, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["code"]), (404, "not_found"), r)


class Expiry(ServerCase):
    SERVER_ARGS = ("--lease-timeout", "1", "--max-attempts", "2")

    def wait_state(self, jid, state, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            got = self.srv.get("/api/v1/jobs/%d" % jid).json()
            if got["state"] == state:
                return got
            time.sleep(0.2)
        self.fail("job %d never reached %s: %s" % (jid, state, got))

    def test_requeue_then_fail_for_good(self):
        srv = self.srv
        m = register(srv, "w-vanishing", tbox="vanishing")
        jid = host_job(srv, sha("6"), tbox_group="vanishing")
        job = srv.post("/api/v1/jobs/lease", {"machine_id": m}, scope="worker").json()["job"]
        got = self.wait_state(jid, "queued")
        self.assertEqual(got["attempts"], 1)
        # the worker that lost its lease is told so and cannot store its results
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m, "phase": "run"},
                     scope="worker")
        self.assertEqual(r.status, 409)
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": docs_for(job, sha("6"))},
                     scope="worker")
        self.assertEqual(r.status, 409)
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "0")
        # second and last attempt also vanishes: failed for good, with the reason kept
        job = srv.post("/api/v1/jobs/lease", {"machine_id": m}, scope="worker").json()["job"]
        self.assertEqual((job["id"], job["attempt"]), (jid, 2))
        got = self.wait_state(jid, "failed")
        self.assertEqual(got["attempts"], 2)
        self.assertIn("lease expired", got["fail_reason"])
        self.assertEqual(srv.post("/api/v1/jobs/lease", {"machine_id": m},
                                  scope="worker").status, 204)

    def test_heartbeats_keep_the_lease(self):
        srv = self.srv
        m = register(srv, "w-alive", tbox="alive")
        jid = host_job(srv, sha("7"), tbox_group="alive")
        srv.post("/api/v1/jobs/lease", {"machine_id": m}, scope="worker")
        for _ in range(6):
            time.sleep(0.4)
            r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m, "phase": "build"},
                         scope="worker")
            self.assertEqual(r.status, 200, r)
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["state"], "leased")


    def test_lease_and_heartbeat_replies_say_the_timeout(self):
        # a worker registered before a restart with another --lease-timeout
        # learns the one in force from every lease and heartbeat reply
        srv = self.srv
        m = register(srv, "w-told", tbox="told")
        jid = host_job(srv, sha("c"), tbox_group="told")
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m}, scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["job"]["id"], jid)
        self.assertEqual(r.json()["lease_timeout_s"], 1)
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m, "phase": "build"},
                     scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["lease_timeout_s"], 1)
        self.assertIn("lease_expires_at", r.json())


class LongPoll(ServerCase):

    def test_waiting_worker_gets_a_job_posted_later(self):
        srv = self.srv
        m = register(srv, "w-poll")
        seen = srv.psql("SELECT last_seen FROM machines WHERE id = %d" % m)
        out = {}

        def poll():
            try:
                out["r"] = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 20},
                                    scope="worker")
            finally:
                out["end"] = time.monotonic()

        t = threading.Thread(target=poll)
        t.start()
        # the poll reached the server (a lease marks its machine seen, then finds no job
        # and parks): when, on a loaded machine, is not up to this test; that it then
        # waits for the job is
        wait_until(lambda: srv.psql("SELECT last_seen FROM machines WHERE id = %d" % m)
                   != seen, timeout=30, what="the poll to reach the server")
        time.sleep(0.5)
        self.assertNotIn("end", out, "the poll was answered before any job was queued")
        posted = time.monotonic()
        jid = host_job(srv, sha("8"))
        t.join(30)
        self.assertIn("r", out, "the parked poll got no reply")
        self.assertEqual(out["r"].status, 200, out["r"])
        self.assertEqual(out["r"].json()["job"]["id"], jid)
        # a parked poll's reply says the lease timeout too (the default, 120 s)
        self.assertEqual(out["r"].json()["lease_timeout_s"], 120)
        # answered on the queue's kick, well before the poll's 20 s deadline
        self.assertLess(out["end"] - posted, 10)

    def test_no_job_answers_204_at_the_deadline(self):
        srv = self.srv
        m = register(srv, "w-idle", tbox="empty-group")
        t0 = time.time()
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 1}, scope="worker")
        self.assertEqual(r.status, 204)
        self.assertGreaterEqual(time.time() - t0, 0.9)

    def test_many_pollers_do_not_block_other_requests(self):
        srv = self.srv
        m = register(srv, "w-crowd", tbox="crowd")
        threads = [threading.Thread(target=srv.post, args=("/api/v1/jobs/lease",),
                                    kwargs={"body": {"machine_id": m, "wait_s": 3},
                                            "scope": "worker"}) for _ in range(40)]
        for t in threads:
            t.start()
        time.sleep(0.3)
        t0 = time.time()
        self.assertEqual(srv.get("/healthz").status, 200)
        self.assertLess(time.time() - t0, 2.5)
        for t in threads:
            t.join(10)

    def test_shutdown_answers_parked_polls(self):
        other = Server()
        m = register(other, "w-shut", tbox="none")
        out = {}
        t = threading.Thread(target=lambda: out.setdefault(
            "r", other.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 30},
                            scope="worker")))
        t.start()
        time.sleep(0.5)
        t0 = time.time()
        self.assertEqual(other.stop(), 0)
        t.join(10)
        self.assertEqual(out["r"].status, 204)
        self.assertLess(time.time() - t0, 10)


class LeaseRequest(ServerCase):
    """request_id (sql/0012): a worker that lost a lease's reply asks again by
    the same name and gets the same job, not another and not a second attempt."""

    def lease(self, machine, rid, wait_s=0):
        body = {"machine_id": machine, "wait_s": wait_s}
        if rid is not None:
            body["request_id"] = rid
        return self.srv.post("/api/v1/jobs/lease", body, scope="worker")

    def job(self, jid):
        return self.srv.get("/api/v1/jobs/%d" % jid).json()

    def test_same_request_same_job(self):
        srv = self.srv
        m = register(srv, "w-rid", tbox="vm-rid")
        other = register(srv, "w-rid-other", tbox="vm-rid")
        j1 = host_job(srv, sha("b1"), tbox_group="vm-rid")
        j2 = host_job(srv, sha("b2"), tbox_group="vm-rid")
        x, y = "0b7e5f9c-6a43-4d0e-9b1a-3f2c8d4e5a61", "1c8f6a0d-7b54-4e1f-8c2b-4a3d9e5f6b72"
        r = self.lease(m, x)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["job"]["id"], j1)
        first = self.job(j1)
        # the reply was "lost": the same name again gets j1, same attempt, lease renewed
        r = self.lease(m, x.upper())
        self.assertEqual(r.status, 200, r)
        self.assertEqual((r.json()["job"]["id"], r.json()["job"]["attempt"]), (j1, 1))
        again = self.job(j1)
        self.assertEqual((again["state"], again["attempts"]), ("leased", 1))
        self.assertGreaterEqual(again["lease_expires_at"], first["lease_expires_at"])
        self.assertEqual(srv.psql("SELECT state FROM jobs WHERE id = %d" % j2), "queued")
        # another machine with the same name does not get it; a new name leases j2
        r = self.lease(other, x)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["job"]["id"], j2)
        r = self.lease(m, y)
        self.assertEqual(r.status, 204, r)
        # once j1 is done the name leases nothing old
        r = srv.post("/api/v1/jobs/%d/complete" % j1,
                     {"machine_id": m, "status": "run-failed", "results": [], "log_tail": ""},
                     scope="worker")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(self.lease(m, x).status, 204)
        # without a name: leased as before
        j3 = host_job(srv, sha("b3"), tbox_group="vm-rid")
        r = self.lease(m, None)
        self.assertEqual((r.status, r.json()["job"]["id"]), (200, j3))
        self.assertEqual(srv.psql("SELECT lease_request IS NULL FROM jobs WHERE id = %d" % j3), "t")

    def test_parked_poll_keeps_the_name(self):
        srv = self.srv
        m = register(srv, "w-rid-poll", tbox="vm-rid-poll")
        z = "2d9a7b1e-8c65-4f20-9d3c-5b4eaf607c83"
        got = {}
        t = threading.Thread(target=lambda: got.update(r=self.lease(m, z, wait_s=20)))
        t.start()
        time.sleep(1)
        jid = host_job(srv, sha("b4"), tbox_group="vm-rid-poll")
        t.join(30)
        self.assertEqual((got["r"].status, got["r"].json()["job"]["id"]), (200, jid))
        r = self.lease(m, z)
        self.assertEqual((r.status, r.json()["job"]["id"]), (200, jid))
        self.assertEqual(self.job(jid)["attempts"], 1)

    def test_bad_request_id(self):
        m = register(self.srv, "w-rid-bad", tbox="vm-rid-bad")
        for bad in ("not-a-uuid", 42, "", ["x"]):
            r = self.lease(m, bad)
            self.assertEqual(r.status, 400, (bad, r))
            self.assertEqual(r.json()["error"]["detail"], "request_id")


class Cancel(ServerCase):
    """POST /api/v1/jobs/{id}/cancel: queued at once, leased with the worker
    told by its next heartbeat, finished ones a 409 naming the state."""

    def lease(self, machine):
        r = self.srv.post("/api/v1/jobs/lease", {"machine_id": machine, "wait_s": 0},
                          scope="worker")
        self.assertEqual(r.status, 200, r)
        return r.json()["job"]

    def test_queued_is_cancelled_at_once_and_never_leased(self):
        srv = self.srv
        m = register(srv, "w-cancel-q", tbox="vm-cancel-q")
        jid = host_job(srv, sha("c1"), tbox_group="vm-cancel-q")
        r = srv.post("/api/v1/jobs/%d/cancel" % jid, {}, scope="submit")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json(), {"id": jid, "state": "cancelled", "was": "queued"})
        got = srv.get("/api/v1/jobs/%d" % jid).json()
        self.assertEqual((got["state"], got["phase"]), ("cancelled", "cancelled"))
        self.assertIsNotNone(got["finished_at"])
        self.assertEqual(got["phase_history"][-1]["phase"], "cancelled")
        self.assertEqual(got["phase_history"][-1]["was"], "queued")
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 204, r)
        # twice: 409 naming the state it is in
        r = srv.post("/api/v1/jobs/%d/cancel" % jid, {}, scope="admin")
        self.assertEqual(r.status, 409, r)
        err = r.json()["error"]
        self.assertEqual((err["code"], err["detail"]), ("conflict", "state"))
        self.assertIn("is cancelled", err["message"])

    def test_leased_is_cancelled_and_the_worker_told_on_heartbeat(self):
        srv = self.srv
        m = register(srv, "w-cancel-l", tbox="vm-cancel-l")
        jid = host_job(srv, sha("c2"), tbox_group="vm-cancel-l")
        job = self.lease(m)
        self.assertEqual(job["id"], jid)
        r = srv.post("/api/v1/jobs/%d/cancel" % jid, {}, scope="admin")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["was"], "leased")
        r = srv.post("/api/v1/jobs/%d/heartbeat" % jid, {"machine_id": m, "phase": "run"},
                     scope="worker")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(r.json()["error"]["code"], "lease_lost")
        self.assertIn("was cancelled", r.json()["error"]["message"])
        # a completion after it stores nothing
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": docs_for(job, sha("c2"))},
                     scope="worker")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid), "0")
        got = srv.get("/api/v1/jobs/%d" % jid).json()
        self.assertEqual((got["state"], got["machine"]), ("cancelled", "w-cancel-l"))

    def test_done_is_409_naming_state_and_scopes(self):
        srv = self.srv
        m = register(srv, "w-cancel-d", tbox="vm-cancel-d")
        jid = host_job(srv, sha("c3"), tbox_group="vm-cancel-d")
        job = self.lease(m)
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "ok", "results": docs_for(job, sha("c3"))},
                     scope="worker")
        self.assertEqual(r.status, 200, r)
        r = srv.post("/api/v1/jobs/%d/cancel" % jid, {}, scope="submit")
        self.assertEqual(r.status, 409, r)
        self.assertEqual(r.json()["error"]["message"],
                         "job %d is done: only a queued or leased job can be cancelled" % jid)
        self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["state"], "done")
        for scope in ("read", "worker"):
            r = srv.post("/api/v1/jobs/%d/cancel" % jid, {}, scope=scope)
            self.assertEqual(r.status, 403, (scope, r))
        r = srv.post("/api/v1/jobs/%d/cancel" % jid, {})
        self.assertEqual(r.status, 401, r)
        r = srv.post("/api/v1/jobs/999999/cancel", {}, scope="submit")
        self.assertEqual(r.status, 404, r)


class NoRun(ServerCase):
    """A job that produced no run carries why in fail_reason."""

    def test_refused_testcase_sets_fail_reason_from_the_worker_line(self):
        srv = self.srv
        m = register(srv, "w-norun", tbox="vm-norun")
        jid = host_job(srv, sha("d1"), tbox_group="vm-norun", testcase="no-such-case")
        r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 200, r)
        log = ("fetching\n\nregtrack-worker: unknown_testcase: no case 'no-such-case' "
               "in /usr/lib/regtrack/cases\n\n")
        r = srv.post("/api/v1/jobs/%d/complete" % jid,
                     {"machine_id": m, "status": "run-failed", "log_tail": log}, scope="worker")
        self.assertEqual(r.status, 200, r)
        for got in (srv.get("/api/v1/jobs/%d" % jid).json(),
                    [j for j in srv.get("/api/v1/jobs").json() if j["id"] == jid][0]):
            self.assertEqual((got["state"], got["outcome"]), ("done", "run-failed"))
            self.assertEqual(got["fail_reason"],
                             "run-failed: regtrack-worker: unknown_testcase: no case "
                             "'no-such-case' in /usr/lib/regtrack/cases")

    def test_the_error_not_a_worker_warning(self):
        """a host run's log starts with the worker's warning about the
        running kernel; the case then refused a value and exited. fail_reason
        quoted the warning (the worker's last own line), not the case's error."""
        srv = self.srv
        m = register(srv, "w-norun3", caps=("host",), tbox="vm-norun3")
        want = []
        warn = ("regtrack-worker: warning: the running kernel was built with gcc-15, not the "
                "job's gcc-12: host mode runs on the running kernel\n")
        for i, (log, reason) in enumerate((
                (warn + "$ /usr/lib/regtrack/cases/x86_64/will-it-scale\n"
                 "will-it-scale: bad value for 'nr_task': 'lots'\n"
                 "usage: will-it-scale [key=value ...]\n  nr_task  default 1\n"
                 "regtrack: case ended: exit status 2\n",
                 "will-it-scale: bad value for 'nr_task': 'lots'"),
                # a worker error line wins over the case's and its warnings
                (warn + "will-it-scale: starting\nregtrack-worker: timeout: the case ran 600 s\n"
                 + warn, "regtrack-worker: timeout: the case ran 600 s"),
                # only warnings: the last
                (warn, warn.strip()))):
            jid = host_job(srv, sha("e%d" % i), tbox_group="vm-norun3", testcase="will-it-scale",
                           params={"nr_task": 1})
            r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
            self.assertEqual(r.json()["job"]["id"], jid)
            r = srv.post("/api/v1/jobs/%d/complete" % jid,
                         {"machine_id": m, "status": "run-failed", "log_tail": log}, scope="worker")
            self.assertEqual(r.status, 200, r)
            want.append((jid, "run-failed: " + reason))
        for jid, reason in want:
            self.assertEqual(srv.get("/api/v1/jobs/%d" % jid).json()["fail_reason"], reason)

    def test_status_and_filter_skipped_is_not_failed(self):
        """six same-image jobs read as "6 failed" on the overview while
        ?state=failed listed none (a run-failed job is done in the state too)"""
        srv = self.srv
        m = register(srv, "w-norun4", caps=("host",), tbox="vm-norun4")
        ids = {}
        for name, body in (("failed", {"status": "run-failed", "log_tail": "x: bad\n"}),
                           ("skipped", {"status": "same-image", "image_sha256": "cd" * 32,
                                        "same_image_as": sha("f0")}),
                           ("done", None)):
            jid = host_job(srv, sha("f%d" % len(ids)), tbox_group="vm-norun4")
            r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
            self.assertEqual(r.json()["job"]["id"], jid)
            if body is None:
                body = {"status": "ok", "log_tail": "",
                        "results": docs_for(r.json()["job"], sha("f2"))}
            r = srv.post("/api/v1/jobs/%d/complete" % jid, dict(body, machine_id=m),
                         scope="worker")
            self.assertEqual(r.status, 200, r)
            ids[name] = jid
        for name, jid in ids.items():
            got = srv.get("/api/v1/jobs/%d" % jid).json()
            self.assertEqual((got["state"], got["status"]), ("done", name), got)
            listed = [j["id"] for j in srv.get("/api/v1/jobs?state=%s" % name).json()]
            self.assertIn(jid, listed)
            self.assertEqual([x for x in ids.values() if x in listed], [jid])
        got = srv.get("/api/v1/jobs/%d" % ids["skipped"]).json()
        self.assertEqual((got["same_image_as"], got["fail_reason"]), (sha("f0"), None))
        r = srv.get("/api/v1/jobs?state=broken")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "state"))

    def test_other_outcomes_last_line_or_no_log(self):
        srv = self.srv
        m = register(srv, "w-norun2", caps=("host",), tbox="vm-norun2")
        want = []
        for i, (status, log) in enumerate((("build-failed", "CC mm/mmap.o\nmm/mmap.c:1: error: x\n"),
                                           ("boot-failed", None),
                                           ("run-failed", "\u00e9" * 400 + "\n"))):
            jid = host_job(srv, sha("d%d" % (i + 2)), tbox_group="vm-norun2")
            r = srv.post("/api/v1/jobs/lease", {"machine_id": m, "wait_s": 0}, scope="worker")
            self.assertEqual(r.json()["job"]["id"], jid)
            r = srv.post("/api/v1/jobs/%d/complete" % jid,
                         {"machine_id": m, "status": status, "log_tail": log}, scope="worker")
            self.assertEqual(r.status, 200, r)
            want.append((jid, status))
        reasons = [srv.get("/api/v1/jobs/%d" % jid).json()["fail_reason"] for jid, _ in want]
        self.assertEqual(reasons[0], "build-failed: mm/mmap.c:1: error: x")
        self.assertEqual(reasons[1], "boot-failed: no log")
        # cut at 500 bytes, not inside a character
        self.assertEqual(reasons[2], "run-failed: " + "\u00e9" * 250 + "\u2026")


if __name__ == "__main__":
    unittest.main()
