"""Kernel tier, last step: the runs that the cases produced inside the qemu
guests (step 5 of run.sh: exec_job output, one JSON file per case and arch)
stored through a real server, as the worker's completion carries them.

Each run object becomes the result document that worker/completion.c makes
of it (the run's own fields, metrics, mode, accel, kernel_release, guest,
... plus the job's: tree, commit, kconfig, compiler, testcase, params, and
the machine), is posted to POST /api/v1/results of the real
regtrack-server on a throwaway PostgreSQL cluster, and read back through
GET /api/v1/runs/{run_id}: the same metric names and values, the run's
mode, what it says of the guest (accel, guest, kernel_release: kept in
runs.extra), and the metric rows in run_values. No boot, no build: this
adds seconds to the tier, not minutes (one more guest run per case through
a real worker would rebuild the kernel per job).

usage: store_guest.py SPEC...   SPEC = FILE|ARCH|KCONFIG|TESTCASE|COMMIT|PARAMS_JSON
Prints one "ok: ..." or "FAIL: ..." line per check; exit 0 when all pass.
Env: REGTRACK_BIN (binaries), REGTRACK_TEST_TMP (cluster dir; default a
new temp dir, removed at the end). Standard library only; Debian's python3.
"""
import json
import os
import shutil
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))

# fields a run cannot override (worker/completion.h)
JOB_FIELDS = ("tree", "commit", "kconfig", "compiler", "testcase", "params")


def result_doc(run, arch, kconfig, testcase, commit, params):
    doc = dict(run)
    doc.update({
        "run_id": str(uuid.uuid4()),
        "tree": "linux", "commit": commit, "kconfig": kconfig, "compiler": "gcc-12",
        "testcase": testcase, "params": params,
        "machine": {"hostname": "kernel-tier", "arch": os.uname().machine,
                    "cpu_model": "qemu host", "nr_cpus": os.cpu_count() or 1,
                    "memory_mb": 1024, "tbox_group": "kernel-tier-" + arch},
    })
    doc.setdefault("status", "ok")
    return doc


def main(specs):
    tmp_made = not os.environ.get("REGTRACK_TEST_TMP")
    if tmp_made:
        os.environ["REGTRACK_TEST_TMP"] = tempfile.mkdtemp(prefix="regtrack-kt-")
    import harness  # after REGTRACK_TEST_TMP is set
    passed = failed = 0

    def check(cond, what):
        nonlocal passed, failed
        if cond:
            passed += 1
            print("ok: " + what)
        else:
            failed += 1
            print("FAIL: " + what, file=sys.stderr)
        return cond

    srv = None
    try:
        srv = harness.Server()
        for spec in specs:
            path, arch, kconfig, testcase, commit, params = spec.split("|", 5)
            label = "%s-%s stored" % (arch, testcase)
            try:
                with open(path) as f:
                    out = json.load(f)
            except (OSError, ValueError) as e:
                check(False, "%s: no exec_job output (%s)" % (label, e))
                continue
            runs = out.get("runs") or []
            if not check(out.get("status") == "ok" and runs,
                         "%s: the guest run is there (status %s)" % (label, out.get("status"))):
                continue
            doc = result_doc(runs[0], arch, kconfig, testcase, commit, json.loads(params))
            r = srv.post("/api/v1/results", doc, scope="submit")
            if not check(r.status in (200, 201), "%s: POST /api/v1/results %d" % (label, r.status)):
                print(r.body, file=sys.stderr)
                continue
            r = srv.get("/api/v1/runs/" + doc["run_id"], scope="read")
            if not check(r.status == 200, "%s: GET /api/v1/runs/{id} %d" % (label, r.status)):
                continue
            got = r.json()
            want = runs[0]["metrics"]
            check(got.get("metrics") == want,
                  "%s: metrics %s read back as sent" % (label, ",".join(sorted(want))))
            check(got.get("mode") == runs[0].get("mode"),
                  "%s: mode %s" % (label, got.get("mode")))
            # what the worker says of the guest is kept in runs.extra
            extra = json.loads(srv.psql("SELECT extra::text FROM runs WHERE run_id = '%s'"
                                        % doc["run_id"]) or "{}")
            check(all(extra.get(k) == runs[0].get(k) for k in ("accel", "guest", "kernel_release")),
                  "%s: accel %s, guest %s, kernel %s kept" % (
                      label, extra.get("accel"), json.dumps(extra.get("guest")),
                      extra.get("kernel_release")))
            n = srv.psql("SELECT count(*) FROM run_values rv JOIN runs r ON r.id = rv.run_id "
                         "WHERE r.run_id = '%s'" % doc["run_id"])
            check(int(n) == len(want), "%s: %s run_values rows" % (label, n))
    finally:
        if srv:
            srv.stop()
        if harness.Cluster._instance:
            harness.Cluster._instance.stop()
        if tmp_made:
            shutil.rmtree(os.environ["REGTRACK_TEST_TMP"], ignore_errors=True)
    print("store_guest: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
