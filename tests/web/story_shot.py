"""The README's picture of a regression page (docs/regression-page.png)
without `make demo`: a throwaway cluster and server (tests/integration's
harness) seeded in the demo's shape (small-allocs on x86_64 and arm64, a
-39 % step at the injected commit, each arch's finished bisect naming it),
then tests/web/screenshot.mjs of the x86_64 record's page.

  REGTRACK_BIN=build/san-address-undefined/bin /usr/bin/python3 \
      tests/web/story_shot.py docs/regression-page.png
"""
import hashlib
import os
import random
import subprocess
import sys
import uuid

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, TOP + "/tests/integration")
from harness import Server  # noqa: E402

METRIC = "vm-scalability.throughput"
PARAMS = {"test": "small-allocs", "nr_task": "1"}
N = 31
CULPRIT = 17
SUBJ = ["linux-source-6.1"] + ["mm: demo commit %d of the series" % i for i in range(1, N)]
SUBJ[CULPRIT] = "mm/mmap: call demo_delay() in do_mmap"
SUBJ[CULPRIT - 1] = "mm/vmscan: tidy a comment"
SUBJ[CULPRIT + 3] = "mm/page_alloc: document the zone lock"
SHAS = ["%02x" % (0x40 + i) + hashlib.sha1(str(i).encode()).hexdigest()[:38] for i in range(N)]
ARCH = {"x86_64": ("x86_64-tiny-mm", "qemu-x86_64-tcg-2c", "x86_64", 1.0e6),
        "arm64": ("arm64-tiny-mm", "qemu-arm64-tcg-2c", "aarch64", 6.0e5)}
rnd = random.Random(7)


def srv_tmp():
    return os.environ.get("TMPDIR", "/tmp")


def main():
    conf = os.path.join(srv_tmp(), "story-shot.conf")
    with open(conf, "w") as f:
        f.write("detect_enabled = 0\n")
    srv = Server(extra_args=["--config", conf, "--web-dir", TOP + "/web",
                             "--public-url", "https://perf.example.org"])
    try:
        for arch, (kc, tbox, march, base) in ARCH.items():
            for i in range(0, N, 1 if arch == "x86_64" else 2):
                for k in range(6):
                    drop = 0.39 if arch == "x86_64" else 0.38
                    v = base * (1 - (drop if i >= CULPRIT else 0)) * (1 + rnd.gauss(0, 0.01))
                    doc = {"run_id": str(uuid.uuid4()), "commit": SHAS[i], "tree": "linux",
                           "branch": "master", "kconfig": kc, "compiler": "gcc-12",
                           "commit_subject": SUBJ[i],
                           "machine": {"hostname": "demo-" + arch, "arch": march, "tbox_group": tbox,
                                       "nr_cpus": 2, "memory_mb": 2048, "cpu_model": "host"},
                           "testcase": "vm-scalability", "params": PARAMS, "status": "ok",
                           "started_at": "2026-11-29T10:00:00Z", "duration_s": 10.0,
                           "metrics": {METRIC: [v]}}
                    r = srv.post("/api/v1/results", doc, scope="submit")
                    assert r.status in (200, 201), r
        q = srv.psql
        q("UPDATE commits SET author = 'Demo Author <demo@example.org>' WHERE sha = '%s'" % SHAS[CULPRIT])
        for i in range(1, N):
            q("UPDATE commits SET parents = ARRAY['%s'] WHERE sha = '%s'" % (SHAS[i - 1], SHAS[i]))
        q("INSERT INTO commit_diffstat (commit_id, files_changed, insertions, deletions) "
          "SELECT id, 2, 14, 1 FROM commits WHERE sha = '%s'" % SHAS[CULPRIT])
        q("INSERT INTO commit_files (commit_id, path, insertions, deletions) SELECT id, p, i, d "
          "FROM commits, (VALUES ('mm/mmap.c', 3, 1), ('mm/demo_delay.c', 11, 0)) v(p, i, d) "
          "WHERE sha = '%s'" % SHAS[CULPRIT])

        def rec(arch, good, bad, hl):
            kc, tbox = ARCH[arch][:2]
            return int(q(
                "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
                "state, change_pct, hl_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, n_before, n_after, "
                "commits_after, pair_verdict) SELECT s.id, m.id, g.id, b.id, 'regression', "
                "'bisected', %f, %f, %f, %f, 0.0001, 'different', 30, 30, 10, 'different' "
                "FROM setups s, metrics m, commits g, commits b WHERE s.kconfig = '%s' AND "
                "m.name = '%s' AND g.sha = '%s' AND b.sha = '%s' RETURNING id"
                % (hl - 0.3, hl, hl - 1.2, hl + 1.1, kc, METRIC, good, bad)).split()[0])
        x = rec("x86_64", SHAS[CULPRIT - 1], SHAS[CULPRIT + 3], -39.1)
        a = rec("arm64", SHAS[CULPRIT - 1], SHAS[CULPRIT + 1], -38.2)
        for rid, arch in ((x, "x86_64"), (a, "arm64")):
            bid = int(q(
                "INSERT INTO bisects (state, tree_id, good_id, bad_id, testcase_id, params, kconfig, "
                "compiler, tbox_group, metric, first_bad_id, confidence, outcome, regression_id, "
                "finished_at, round, phase) SELECT 'done', t.id, g.good_commit_id, g.bad_commit_id, "
                "s.testcase_id, s.params, s.kconfig, s.compiler, s.tbox_group, '%s', f.id, 0.9991, "
                "'found', g.id, now(), 4, 'end' FROM trees t, commits f, regressions g JOIN setups s "
                "ON s.id = g.setup_id WHERE t.name = 'linux' AND f.sha = '%s' AND g.id = %d "
                "RETURNING id" % (METRIC, SHAS[CULPRIT], rid)).split()[0])
            q("UPDATE regressions SET bisect_id = %d WHERE id = %d" % (bid, rid))
        out = os.path.abspath(sys.argv[1])
        subprocess.run(["node", TOP + "/tests/web/screenshot.mjs", "%s/regressions/%d" % (srv.url, x),
                        out, "1280", "1600"], check=True, cwd=TOP + "/tests/web", timeout=120)
        print("wrote", out)
    finally:
        srv.stop()
        srv.cluster.stop()


main()
