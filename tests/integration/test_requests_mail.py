"""A/B requests' result mail to `notify`: a real SMTP
server (aiosmtpd, smtpsink.py), the real server's outbox and mailer, a
real git tree whose patch is the mbox, workers over the real protocol on
x86_64 and arm64. The mail has the robot's form for a patch ("we noticed a
+12.0% improvement of METRIC on x86_64 with your patch ..."), the other
arch's change, an LKP table per target, the request page and the commands
that reproduce each data point; a series that does not apply mails why; a
request without notify mails nothing."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import resolved, result_doc, wait_until  # noqa: E402
from fakes import MACHINE, git, git_init, stop_tree_server, tree_server  # noqa: E402
from smtpsink import SmtpSink  # noqa: E402

METRIC = "small-allocs.throughput"
# the case's param and the machine's (lib/vmspec.h): host mode, vCPUs, pinning
TC = [{"testcase": "small-allocs", "params": {"nr_task": 1, "accel": "tcg", "vcpus": 2,
                                              "pin": True}}]
APPLIED = "ab" * 20  # what git am made on the workers
ARM = dict(MACHINE, hostname="arm1", arch="aarch64", tbox_group="vm-arm")
X86 = dict(MACHINE, hostname="x1")


def guest_of(m):
    """the guest a worker on m describes in its result (worker/execute.c): 2 pinned vCPUs"""
    return {"arch": m["arch"], "nr_cpus": 2, "memory_mb": 512, "accel": "tcg", "icount": False,
            "cpu_model": "max", "pinned": [0, 1], "hugepages": None, "numa": None}


def make_tree(path):
    git_init(path)
    with open(os.path.join(path, "mm.c"), "w") as f:
        f.write("int x;\n")
    git(path, "add", "mm.c")
    git(path, "commit", "-q", "-m", "mm: base", date="2026-01-01T00:00:00Z")
    c0 = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-b", "topic")
    with open(os.path.join(path, "mm.c"), "a") as f:
        f.write("int y;\n")
    git(path, "commit", "-q", "-am", "mm: faster small allocs", date="2026-01-02T10:00:00Z")
    mbox = git(path, "format-patch", "--stdout", "-1", "HEAD") + "\n"
    git(path, "checkout", "-q", "master")
    return {"c0": c0, "mbox": mbox}


class RequestMail(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sink = SmtpSink()
        cls.sink.start()
        cls.tmp, cls.repo, cls.tree, cls.srv = tree_server(
            "regtrack-reqmail-", make_tree,
            "detect_enabled = 0\nsmtp_url = %s\nsmtp_starttls = none\n"
            "mail_from = regtrack bot <regtrack@example.org>\n"
            "public_url = https://perf.example.org/\nmail_retry_max_s = 1\n"
            "notify_domains = example.net, example.org\n" % cls.sink.url,
            dry_run=False)
        srv = cls.srv
        r = srv.post("/api/v1/trees", {"name": "demo", "url": cls.repo, "branches": ["master"]},
                     scope="admin")
        assert r.status == 200, r
        wait_until(lambda: [t for t in srv.get("/api/v1/trees").json()
                            if t["name"] == "demo" and t["commits"] >= 1], what="mirror")
        cls.mids = {}
        for m, cap in ((X86, "qemu-x86_64"), (ARM, "qemu-aarch64")):
            r = srv.post("/api/v1/workers/register", dict(m, capabilities=[cap], fingerprint={}),
                         scope="worker")
            assert r.status == 200, r
            cls.mids[m["hostname"]] = r.json()["machine_id"]

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)
        cls.sink.stop()

    def run_request(self, body, value, fail=None, fp=None):
        """Submits body, then leases on both workers until nothing is left; value(machine,
        side, i) is run i's sample; fail(job) a completion instead of runs; fp(machine,
        side) the runs' host_fingerprint (None or no fp: none)."""
        b = {"tree": "demo", "base": self.tree["c0"], "patches": self.tree["mbox"],
             "testcases": TC, "targets": ["x86_64", "arm64"], "kconfig": "defconfig",
             "repeat": 6}
        b.update(body)
        r = self.srv.post("/api/v1/requests", b, scope="submit")
        self.assertEqual(resolved(self.srv, r)["state"], "queued")
        rid = r.json()["id"]
        busy = True
        while busy:
            busy = False
            for m in (X86, ARM):
                mid = self.mids[m["hostname"]]
                r = self.srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 0},
                                  scope="worker")
                if r.status != 200:
                    continue
                busy = True
                job = r.json()["job"]
                head = job["side"] == "head"
                c = fail(job) if fail else None
                if c is None:
                    c = {"status": "ok", "log_tail": "ok\n", "results": [
                        dict(result_doc(APPLIED if head else job["commit"],
                                        testcase=job["testcase"], job_id=job["id"],
                                        params=job["params"], kconfig=job["kconfig"],
                                        compiler=job["compiler"], tree="demo", machine=m,
                                        accel="tcg", cpus=2, guest=guest_of(m),
                                        metrics={METRIC: [value(m, job["side"], i)]}),
                             **dict({"patch_id": "fb" * 20, "base_commit": job["commit"]}
                                    if head else {},
                                    **({"host_fingerprint": fp(m, job["side"])}
                                       if fp and fp(m, job["side"]) else {})))
                        for i in range(job["repeat"])]}
                c["machine_id"] = mid
                r = self.srv.post("/api/v1/jobs/%d/complete" % job["id"], c, scope="worker")
                self.assertEqual(r.status, 200, r)
        return rid

    def test_1_patch_mail_both_arches(self):
        def value(m, side, i):
            up = {"x1": 1.12, "arm1": 1.03}[m["hostname"]] if side == "head" else 1.0
            return 1000.0 * up + i % 3
        rid = self.run_request({"notify": "dev@example.org", "label": "<series-1@example.org>"},
                               value)
        q = self.srv.get("/api/v1/requests/%d" % rid).json()
        self.assertEqual((q["state"], q["verdict"]), ("done", "improvement"))
        (m,) = self.sink.wait_for(1)
        self.assertEqual(m["rcpt_tos"], ["dev@example.org"])
        msg = m["msg"]
        self.assertEqual(msg["Subject"],
                         '[regtrack] +12.0% improvement of small-allocs.throughput on x86_64 '
                         'with your patch "[PATCH] mm: faster small allocs"')
        self.assertEqual(msg["To"], "dev@example.org")
        body = msg.get_content().replace("\r\n", "\n")
        self.assertIn("we noticed a +12.0% improvement of small-allocs.throughput on x86_64 "
                      'with your patch "[PATCH] mm: faster small allocs".', body)
        self.assertIn("On arm64: +3.0% (improvement).", body)
        self.assertIn("patch:     \"[PATCH] mm: faster small allocs\" (1 patch(es), patch-id "
                      + "fb" * 20 + ")", body)
        self.assertIn("head:      %s (git am on base)" % APPLIED, body)
        self.assertIn("label:     <series-1@example.org>", body)
        self.assertIn("base:      %s\n" % self.tree["c0"], body)
        # an LKP table per target, base then head columns
        for t in ("x86_64", "arm64"):
            self.assertIn("\n%s (small-allocs):\n" % t, body)
        # the setup's axes: the case's param and the machine's (host mode, vCPUs, pinning)
        self.assertIn("\naccel/compiler/kconfig/nr_task/pin/target/testcase/vcpus:\n"
                      "  tcg/gcc-12/x86_64-defconfig/1/true/x86_64/small-allocs/2\n", body)
        # what the runs got: each target's machine (the worker's guest on its host)
        self.assertIn("\nmachine:   x86_64 (small-allocs): vm-2p - 2 vCPUs pinned, 512M memory, "
                      "x86_64 qemu guest (tcg) on fake\n"
                      "machine:   arm64 (small-allocs): vm-arm - 2 vCPUs pinned, 512M memory, "
                      "aarch64 qemu guest (tcg) on fake\n", body)
        self.assertRegex(body, r"%stddev +%change +%stddev")
        self.assertRegex(body, r"1000\.3 +\+12\.0% +1120\.3 +small-allocs\.throughput")
        self.assertRegex(body, r"1000\.3 +\+3\.0% +1030\.3 +small-allocs\.throughput")
        self.assertIn("https://perf.example.org/requests/%d" % rid, body)
        self.assertIn("regtrack test --tree demo --base %s --patches series.mbox"
                      % self.tree["c0"], body)
        # the data points on one's own machine, and the base's job in the service
        self.assertIn("regtrack-worker reproduce --kconfig arm64-defconfig --testcase "
                      "small-allocs --params accel=tcg,nr_task=1,pin=true,vcpus=2 --arch aarch64 --commit %s "
                      "--patches series.mbox --repeat 6" % self.tree["c0"], body)
        self.assertIn("regtrack-worker reproduce --kconfig x86_64-defconfig --testcase "
                      "small-allocs --params accel=tcg,nr_task=1,pin=true,vcpus=2 "
                      "--commit %s --repeat 6"
                      % self.tree["c0"], body)
        self.assertIn("curl -sS -X POST", body)
        self.assertNotIn("ran on hosts that differ", body)  # no fingerprints: nothing to say
        self.assertIn("https://perf.example.org/api/v1/jobs", body)
        self.assertEqual(self.srv.psql("SELECT kind || ' ' || state FROM outbox WHERE "
                                       "request_id = %d" % rid), "request sent")

    def test_2_apply_failure_mails_why_and_no_notify_mails_nothing(self):
        def fail(job):
            if job["side"] != "head":
                return None
            return {"status": "run-failed",
                    "log_tail": "apply-failed: git am failed: error: patch failed: mm.c:1\n"}
        before = len(self.sink.messages)
        rid = self.run_request({"notify": "dev@example.org"}, lambda m, s, i: 1000.0 + i,
                               fail=fail)
        self.assertEqual(self.srv.get("/api/v1/requests/%d" % rid).json()["state"], "failed")
        msgs = self.sink.wait_for(before + 1)
        msg = msgs[before]["msg"]
        self.assertEqual(msg["Subject"], '[regtrack] could not test with your patch '
                                         '"[PATCH] mm: faster small allocs"')
        body = msg.get_content()
        self.assertIn("we could not complete the test with your patch", body)
        self.assertIn("patch failed: mm.c:1", body)
        # no notify: done, and no row in the outbox
        rid = self.run_request({}, lambda m, s, i: 1000.0 + i)
        self.assertEqual(self.srv.get("/api/v1/requests/%d" % rid).json()["state"], "done")
        self.assertEqual(self.srv.psql("SELECT count(*) FROM outbox WHERE request_id = %d"
                                       % rid), "0")

    def test_3_fingerprint_note_per_target(self):
        # x86_64's head runs on a host with another microcode and host kernel: one note
        # for that target with both values; arm64's sides share a fingerprint: none
        x86 = {"cpu_model": "Xeon", "microcode": "0xf0", "cpufreq_governor": "performance",
               "kernel_release": "6.1.0", "cmdline": "quiet"}
        arm = dict(x86, cpu_model="Neoverse-N1", microcode="0x0")

        def fp(m, side):
            if m["hostname"] == "arm1":
                return arm
            return dict(x86, microcode="0xf4", kernel_release="6.5.0") if side == "head" else x86
        before = len(self.sink.messages)
        self.run_request({"notify": "dev@example.org"}, lambda m, s, i: 1000.0 + i % 3, fp=fp)
        body = self.sink.wait_for(before + 1)[before]["msg"].get_content().replace("\r\n", "\n")
        self.assertIn("\nnote:      x86_64 (small-allocs): base and head ran on hosts that differ "
                      "in host kernel (6.1.0 vs 6.5.0), microcode (0xf0 vs 0xf4)\n", body)
        self.assertEqual(body.count("ran on hosts that differ"), 1)
        self.assertNotIn("arm64 (small-allocs): base and head", body)

    def test_4_notify_only_at_notify_domains(self):
        b = {"tree": "demo", "base": self.tree["c0"], "patches": self.tree["mbox"],
             "testcases": TC, "targets": ["x86_64"], "kconfig": "defconfig", "repeat": 2}
        for addr in ("dev@evil.example", "dev@example.org.evil.example",
                     "dev@example.org, x@evil.example"):
            r = self.srv.post("/api/v1/requests", dict(b, notify=addr), scope="submit")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "notify"), r)
            self.assertIn("notify_domains (example.net, example.org)",
                          r.json()["error"]["message"])
        self.assertEqual(self.srv.get("/api/v1/requests?state=queued", scope="read").json(), [])

    def test_5_what_is_public(self):
        """README "Security: what is public": without a token no series, notify address,
        A/B build log or host fingerprint; with any token all of them."""
        rid = self.run_request({"notify": "dev@example.org"}, lambda m, s, i: 1000.0 + i)
        anon = self.srv.get("/api/v1/requests/%d" % rid).json()
        full = self.srv.get("/api/v1/requests/%d" % rid, scope="read").json()
        self.assertEqual(full["notify"], "dev@example.org")
        self.assertEqual(full["patches"]["subject"], "[PATCH] mm: faster small allocs")
        self.assertEqual(full["patches"]["mbox_url"], "/api/v1/requests/%d/mbox" % rid)
        self.assertNotIn("notify", anon)
        self.assertEqual(sorted(set(full["patches"]) - set(anon["patches"])),
                         ["mbox_url", "subject"])
        self.assertEqual(anon["patches"]["count"], 1)
        self.assertEqual(anon["verdict"], full["verdict"])
        listed = {q["id"]: q for q in self.srv.get("/api/v1/requests").json()}
        self.assertNotIn("notify", listed[rid])
        self.assertNotIn("subject", listed[rid]["patches"])
        listed = {q["id"]: q for q in self.srv.get("/api/v1/requests", scope="read").json()}
        self.assertEqual(listed[rid]["patches"]["subject"], full["patches"]["subject"])
        mbox = "/api/v1/requests/%d/mbox" % rid
        self.assertEqual(self.srv.get(mbox).status, 401)
        self.assertEqual(self.srv.get(mbox, scope="read").body, self.tree["mbox"])
        # an A/B job's build log (it builds the series) needs a token
        job = full["jobs"][0]["id"]
        self.assertNotIn("log_tail", self.srv.get("/api/v1/jobs/%d" % job).json())
        self.assertEqual(self.srv.get("/api/v1/jobs/%d" % job, scope="read").json()["log_tail"],
                         "ok\n")
        # the host facts a worker registered need a token; its name and size do not
        fp = {"kernel_release": "6.1.0-13-amd64", "cmdline": "root=/dev/sda1 secret=1"}
        r = self.srv.post("/api/v1/workers/register",
                          dict(MACHINE, hostname="fp1", tbox_group="vm-fp",
                               capabilities=["host"], fingerprint=fp), scope="worker")
        self.assertEqual(r.status, 200, r)
        anon = {m["hostname"]: m for m in self.srv.get("/api/v1/machines").json()}
        full = {m["hostname"]: m for m in
                self.srv.get("/api/v1/machines", scope="read").json()}
        self.assertEqual(full["fp1"]["fingerprint"], fp)
        self.assertNotIn("fingerprint", anon["fp1"])
        self.assertEqual((anon["fp1"]["arch"], anon["fp1"]["nr_cpus"]),
                         (full["fp1"]["arch"], full["fp1"]["nr_cpus"]))

    def test_9_without_smtp_url_held_with_the_hint(self):
        """Issue 30 item 11: without smtp_url a notify mail is `held` with the
        reason, the log says what to set, and it goes out once that is set."""
        conf = self.srv.extra_args[self.srv.extra_args.index("--config") + 1]
        with open(conf) as f:
            text = f.read()
        smtp = [l for l in text.splitlines(True) if l.startswith("smtp_url =")]
        self.assertEqual(len(smtp), 1)
        with open(conf, "w") as f:
            f.write(text.replace(smtp[0], ""))
        self.srv.restart()
        try:
            before = len(self.sink.messages)
            rid = self.run_request({"notify": "dev@example.org"}, lambda m, s, i: 1000.0 + i)
            oid = int(self.srv.psql("SELECT id FROM outbox WHERE request_id = %d" % rid))
            row = wait_until(lambda: [o for o in self.srv.get("/api/v1/outbox",
                                                              scope="admin").json()
                                      if o["id"] == oid and o["state"] != "queued"],
                             what="the row settled")[0]
            self.assertEqual((row["kind"], row["state"], row["last_error"]),
                             ("request", "held", "held: smtp_url not set"))
            with open(self.srv.log.name, "rb") as f:
                f.seek(self.srv.log_start)
                log = f.read().decode("utf-8", "replace")
            self.assertIn("warning mail held: smtp_url not set: report and A/B mails are kept in "
                          "the outbox as 'held' until the server starts with smtp_url (--smtp) "
                          "or mail_dry_run_dir set\n", log)
            self.assertIn("warning mail %d (request) held: smtp_url not set; it goes out once "
                          "the server starts with smtp_url (--smtp) or mail_dry_run_dir set\n"
                          % oid, log)
            self.assertEqual(len(self.sink.messages), before)
        finally:
            with open(conf, "w") as f:
                f.write(text)
            self.srv.restart()
        # the held mail goes out after the restart; an earlier test's mail may land first
        m = wait_until(lambda: [x for x in self.sink.messages[before:]
                                if "/requests/%d\r\n" % rid in x["msg"].get_content()],
                       what="the held mail sent")[0]
        self.assertEqual(m["rcpt_tos"], ["dev@example.org"])


if __name__ == "__main__":
    unittest.main()
