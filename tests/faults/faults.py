"""Fault tests, `make check-faults`: each scenario prints its
figures and exits non-zero when an invariant breaks.

  kill-server  the server is killed with SIGKILL (3 times) while 1,000
               result documents are uploaded by 8 clients that retry until
               acknowledged: afterwards exactly 1,000 runs, each once, with
               their values.
  worker-kill  a host-mode worker SIGKILLed 20 times in its run and upload
               phases: every job done once with its runs, none lost or doubled.
  worker-valgrind  one host job by `regtrack-worker run --once` under
               valgrind --leak-check=full: clean, job done with its runs.
  pg-restart   PostgreSQL is stopped under upload load: the server answers
               503 (healthz and writes) while it is down, answers again
               within 5 s of PostgreSQL coming back, without a restart, and
               every acknowledged write is in the database.
  load         500 workers long-polling POST /api/v1/jobs/lease (wait_s 20,
               parked by the server) and 200 result documents/s for 60 s on
               loopback, by tests/faults/loadmix (C, libcurl multi); 500 jobs
               submitted at 50 s. Printed: achieved rate, p50/p99/max per
               request kind (client and server side; target p99 <= 50 ms, a
               figure, not an assertion), server RSS/fds before, peak, after,
               CPU. Asserted: no failed request, every document stored once,
               every job leased once, to the poller it was delivered to.
               LOAD_POLLERS, LOAD_RATE, LOAD_SECONDS, LOAD_JOBS scale it.
  nginx-failover  two servers on one database behind nginx (foreground, own
               prefix in a temp dir); 100 workers lease, run 0.5 s and
               complete 3,000 jobs through it while 50 documents/s are
               uploaded; one server is SIGKILLed at 8 s. Asserted: nothing
               started after the kill fails; of what was in flight only
               leases (not idempotent: 502, retried by the worker) fail, the
               idempotent POSTs (results, complete) are passed on by nginx;
               no job delivered or completed twice, every job done with one
               run, every document stored once; both servers served leases.
  flood        4,000 idle sockets opened from 127.0.0.1 in a burst and held
               20 s: a legitimate client on 127.0.0.2 asks /healthz and
               uploads a result document (submit token) meanwhile. Printed:
               sockets the server kept / closed, the legitimate client's
               latencies (p50/max), server RSS and fds. Asserted: every
               legitimate request answered, each within 1 s.
  slow-headers 100 connections from 127.0.0.1 send one header line every
               5 s (never idle for the 120 s timeout) for up to 45 s.
               Printed: when the server closed them (header_timeout_s = 30),
               the legitimate client's latencies meanwhile. Asserted: all
               closed by 35 s, every legitimate request within 1 s.
  unauth-bodies  20 connections without a token each start a 15 MB
               POST /api/v1/results. Printed: the reply each got and when,
               the bytes it could send, server RSS before and peak, the
               legitimate client's latencies, forged completions accepted
               (a second worker token completing another's leased job).
               Asserted: every one refused 401 before its body, RSS peak
               within 32 MB of the start, 0 forged completions.
  stalled-upstream  three trees whose git remote accepts and then sends
               nothing (a clone hangs until git's low-speed limit) are
               polled, and ten A/B requests (more than the server's 8
               HTTP threads) name one of them, while a
               prober asks /healthz every 0.2 s and a worker long-polls
               (wait_s 5) for a job queued for it 0.5 s into each poll.
               Asserted for 30 s: every /healthz within 1 s, every queued
               job delivered to the waiting poll within 1 s of its submission;
               then each request answered (502 once the remote is gone), none
               dropped (on the HTTP threads, those queued behind one were shut
               at header_timeout_s without a reply).
  queue-flood  100,000 queued jobs for a tbox_group no worker has (psql),
               20 workers of other targets parked in long polls, and the
               prober above for 30 s. Asserted as there.
  memory-return  12 result documents with 3.4 MiB profiles uploaded by 4
               clients, then 6 folded=1 profile diffs over them (2 at a
               time, each its own limit=, the reply cache off so each is
               computed). Printed: server RSS at the start, after each burst
               and its peak. Asserted: every upload 201, every diff 200 and
               computed (X-Regtrack-Cache: miss), at most 96 MiB more than at
               the start kept after each burst. A plain build's bound
               (SANITIZE=none, bin/): ASan's allocator keeps freed memory.
  nginx-conf   deploy/nginx/regtrack.conf itself (its ports, upstream and
               certificate paths rewritten to a temp dir, a self-signed
               certificate) in front of a server. Asserted: /healthz over
               TLS 200; two Content-Length headers, a non-numeric one and a
               17 MB body refused by nginx with the API's JSON error shape,
               none reaching the server; HTTP redirects to HTTPS.

Run by tests/faults/run.sh with REGTRACK_BIN set; Debian's /usr/bin/python3.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import PG_LOCAL, Server, result_doc, sha, stop_process  # noqa: E402


def post(url, token, doc, timeout=10):
    """(status, body) or (None, error text) when the connection fails."""
    req = urllib.request.Request(url + "/api/v1/results", data=json.dumps(doc).encode(),
                                 method="POST")
    req.add_header("Authorization", "Bearer " + token)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (OSError, urllib.error.URLError) as e:
        return None, str(e)


class Uploader(threading.Thread):
    """Uploads its documents in order, each retried until 200/201."""

    def __init__(self, srv, docs, token):
        super().__init__(daemon=True)
        self.srv, self.docs, self.token = srv, docs, token
        self.acked, self.attempts, self.statuses = [], 0, {}
        self.bad = []

    def run(self):
        for doc in self.docs:
            while True:
                self.attempts += 1
                st, body = post(self.srv.url, self.token, doc)
                self.statuses[st] = self.statuses.get(st, 0) + 1
                if st in (200, 201):
                    self.acked.append(doc["run_id"])
                    break
                if st is not None and st not in (503,) and st < 500:
                    self.bad.append((st, body[:200]))
                    break
                time.sleep(0.05)


def docs_for(n, prefix):
    out = []
    for i in range(n):
        d = result_doc(sha("%x" % (i % 16)), metrics={"fault.ops": [float(i), float(i) + 0.5]},
                       params={"test": prefix, "i": i % 7})
        out.append(d)
    return out


def check_stored(srv, docs, fails):
    ids = [d["run_id"] for d in docs]
    runs = int(srv.psql("SELECT count(*) FROM runs"))
    distinct = int(srv.psql("SELECT count(DISTINCT run_id) FROM runs"))
    values = int(srv.psql("SELECT count(*) FROM run_values"))
    stored = set(srv.psql("SELECT run_id FROM runs").split())
    missing = [i for i in ids if i not in stored]
    print("  runs stored %d (distinct %d), run_values rows %d, missing %d"
          % (runs, distinct, values, len(missing)))
    if runs != len(docs) or distinct != len(docs) or missing or values != len(docs):
        fails.append("stored %d runs / %d distinct / %d values for %d documents, %d missing"
                     % (runs, distinct, values, len(docs), len(missing)))


def kill_server():
    fails = []
    srv = Server()
    port = int(srv.addr.rsplit(":", 1)[1])
    docs = docs_for(1000, "kill")
    ups = [Uploader(srv, docs[i::8], srv.tokens["submit"]) for i in range(8)]
    t0 = time.monotonic()
    for u in ups:
        u.start()
    kills = 0
    for k in range(3):
        # by progress, not by the clock: kill k comes once a quarter more of the
        # documents is acknowledged, so uploads are always in flight at the kill
        # (a fixed sleep let a fast machine finish all 1,000 before the first)
        mark = (k + 1) * len(docs) // 4
        while sum(len(u.acked) for u in ups) < mark and any(u.is_alive() for u in ups):
            time.sleep(0.002)
        done = sum(len(u.acked) for u in ups)
        if done >= len(docs):
            break
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait()
        kills += 1
        srv.stop()
        print("  SIGKILL %d after %d acknowledged" % (kills, done))
        time.sleep(0.3)
        srv.start(port)
    for u in ups:
        u.join(300)
    elapsed = time.monotonic() - t0
    attempts = sum(u.attempts for u in ups)
    statuses = {}
    for u in ups:
        for k, v in u.statuses.items():
            statuses[str(k)] = statuses.get(str(k), 0) + v
        fails += ["client refused: %s" % (b,) for b in u.bad]
    acked = sum(len(u.acked) for u in ups)
    print("  %d kills, %d documents acknowledged, %d attempts, statuses %s, %.1f s"
          % (kills, acked, attempts, statuses, elapsed))
    if kills == 0:
        fails.append("the uploads finished before the first kill: nothing was tested")
    check_stored(srv, docs, fails)
    srv.stop()
    return fails


def pg_restart():
    fails = []
    srv = Server()
    env = srv.cluster.env
    docs = docs_for(3000, "pg")
    ups = [Uploader(srv, docs[i::6], srv.tokens["submit"]) for i in range(6)]
    for u in ups:
        u.start()
    time.sleep(1.5)
    before = sum(len(u.acked) for u in ups)
    subprocess.run([PG_LOCAL, "stop"], env=env, check=True, capture_output=True, timeout=120)
    t_down = time.monotonic()
    # while down: 503 from healthz and from a write
    h = urllib.request.Request(srv.url + "/healthz")
    codes = []
    for _ in range(10):
        try:
            with urllib.request.urlopen(h, timeout=10) as r:
                codes.append(r.status)
        except urllib.error.HTTPError as e:
            codes.append(e.code)
        st, _ = post(srv.url, srv.tokens["submit"], result_doc(sha("ab")))
        codes.append(st)
        time.sleep(0.2)
    down_s = time.monotonic() - t_down
    print("  PostgreSQL down %.1f s after %d acknowledged; answers while down: %s"
          % (down_s, before, sorted(set(map(str, codes)))))
    if set(codes) != {503}:
        fails.append("while PostgreSQL was down the server answered %s, not only 503" % codes)
    subprocess.run([PG_LOCAL, "start"], env=env, check=True, capture_output=True, timeout=120)
    t_up = time.monotonic()
    healthy = None
    while time.monotonic() - t_up < 30:
        try:
            with urllib.request.urlopen(h, timeout=5) as r:
                if r.status == 200:
                    healthy = time.monotonic() - t_up
                    break
        except (urllib.error.HTTPError, OSError):
            pass
        time.sleep(0.05)
    st = None
    while healthy is not None and time.monotonic() - t_up < 30:
        st, _ = post(srv.url, srv.tokens["submit"], result_doc(sha("cd")))
        if st == 201:
            break
        time.sleep(0.05)
    written = time.monotonic() - t_up
    print("  PostgreSQL back: healthz 200 after %s s, first write 201 after %.2f s"
          % ("%.2f" % healthy if healthy is not None else "never", written))
    if healthy is None or healthy > 5 or st != 201 or written > 5:
        fails.append("no reconnect within 5 s (healthz %s, write %s after %.1f s)"
                     % (healthy, st, written))
    for u in ups:
        u.join(600)
    statuses = {}
    for u in ups:
        for k, v in u.statuses.items():
            statuses[str(k)] = statuses.get(str(k), 0) + v
        fails += ["client refused: %s" % (b,) for b in u.bad]
    print("  uploads: %d acknowledged, statuses %s" % (sum(len(u.acked) for u in ups), statuses))
    # every acknowledged document is stored (plus the two probes written above)
    srv.psql("DELETE FROM runs WHERE commit_id IN (SELECT id FROM commits WHERE sha IN ('%s','%s'))"
             % (sha("ab"), sha("cd")))
    check_stored(srv, docs, fails)
    if srv.proc.poll() is not None:
        fails.append("the server exited")
    srv.stop()
    return fails


CASES = os.environ.get("REGTRACK_CASES", os.path.join(os.path.dirname(PG_LOCAL), "..", "bin",
                                                        "cases"))


def worker_kill():
    """Host-mode jobs; the worker is SIGKILLed 20 times, alternately in the
    run phase and at the start of the upload phase, and restarted on the
    same work dir (its spool). Every job must end done once with exactly
    `repeat` runs, none lost, none doubled. (Host mode has no fetch, build
    or boot phase to kill in.)"""
    import re
    import tempfile
    fails = []
    srv = Server(extra_args=["--lease-timeout", "3", "--max-attempts", "50"])
    work = tempfile.mkdtemp(prefix="wk-", dir=os.environ.get("REGTRACK_TEST_TMP"))
    log_path = os.path.join(work, "worker.log")
    jobs = []
    for i in range(12):
        r = srv.post("/api/v1/jobs", {"commit": sha("1"), "kconfig": "host", "compiler": "gcc-12",
                                      "testcase": "small-allocs",
                                      "params": {"nr_task": "1", "runtime": "0.3", "source": "anon"},
                                      "tbox_group": "faults-box", "repeat": 2}, scope="submit")
        if r.status not in (200, 201):
            return ["cannot submit a job: %r" % r]
        jobs.append(r.json()["id"])

    def start():
        args = [os.path.join(os.environ.get("REGTRACK_BIN", "bin"), "regtrack-worker"), "run",
                "--server", srv.url, "--work-dir", work, "--tbox-group", "faults-box",
                "--capabilities", "host", "--cases-dir", CASES, "--lease-wait", "1",
                "--retry-max", "1", "--heartbeat", "1", "--heartbeat-run", "1"]
        log = open(log_path, "ab")
        return subprocess.Popen(args, stdout=log, stderr=log,
                                env=dict(os.environ, REGTRACK_TOKEN=srv.tokens["worker"])), log

    def done():
        return int(srv.psql("SELECT count(*) FROM jobs WHERE state IN ('done', 'failed')"))

    kills = {"run": 0, "upload": 0}
    t0 = time.monotonic()
    proc, log = start()
    want = "run"
    seen = 0
    while sum(kills.values()) < 20 and done() < len(jobs) and time.monotonic() - t0 < 600:
        with open(log_path, errors="replace") as f:
            text = f.read()
        hits = [m.start() for m in re.finditer(r"phase %s" % want, text)]
        new = [h for h in hits if h >= seen]
        if new:
            seen = len(text)
            if want == "run":
                time.sleep(0.15)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            log.close()
            kills[want] += 1
            want = "upload" if want == "run" else "run"
            proc, log = start()
        time.sleep(0.005)
    while done() < len(jobs) and time.monotonic() - t0 < 900:
        time.sleep(0.5)
    stop_process(proc, timeout=60)
    log.close()
    elapsed = time.monotonic() - t0
    rows = srv.psql("SELECT j.id, j.state, coalesce(j.outcome, ''), j.attempts, "
                    "(SELECT count(*) FROM runs r WHERE r.job_id = j.id), "
                    "(SELECT count(DISTINCT r.run_id) FROM runs r WHERE r.job_id = j.id) "
                    "FROM jobs j ORDER BY j.id").splitlines()
    attempts = 0
    for row in rows:
        jid, state, outcome, att, nruns, ndistinct = row.split("|")
        attempts += int(att)
        if state != "done" or outcome != "ok" or nruns != "2" or ndistinct != "2":
            fails.append("job %s: state %s outcome %s, %s runs (%s distinct)"
                         % (jid, state, outcome, nruns, ndistinct))
    total = int(srv.psql("SELECT count(*) FROM runs"))
    print("  %d kills (run %d, upload %d), %d jobs, attempts %d, runs stored %d (expected %d), "
          "%.1f s" % (sum(kills.values()), kills["run"], kills["upload"], len(jobs), attempts,
                      total, 2 * len(jobs), elapsed))
    if total != 2 * len(jobs):
        fails.append("%d runs stored for %d expected" % (total, 2 * len(jobs)))
    if sum(kills.values()) < 10:
        fails.append("only %d kills happened" % sum(kills.values()))
    dropped = os.listdir(os.path.join(work, "spool", "dropped")) \
        if os.path.isdir(os.path.join(work, "spool", "dropped")) else []
    print("  spool/dropped (completions refused after a lost lease): %d" % len(dropped))
    srv.stop()
    return fails


def worker_valgrind():
    """One host job run by `regtrack-worker run --once` under valgrind
    (--leak-check=full --error-exitcode=1): no error, no leak, job done."""
    import tempfile
    fails = []
    srv = Server()
    work = tempfile.mkdtemp(prefix="wv-", dir=os.environ.get("REGTRACK_TEST_TMP"))
    r = srv.post("/api/v1/jobs", {"commit": sha("2"), "kconfig": "host", "compiler": "gcc-12",
                                  "testcase": "small-allocs",
                                  "params": {"nr_task": "1", "runtime": "0.3", "source": "anon"},
                                  "tbox_group": "vg-box", "repeat": 2}, scope="submit")
    jid = r.json()["id"]
    args = ["valgrind", "--leak-check=full", "--show-leak-kinds=definite,indirect,possible",
            "--errors-for-leak-kinds=definite,indirect,possible", "--error-exitcode=1",
            "--track-fds=no", "--quiet",
            os.path.join(os.environ.get("REGTRACK_BIN", "bin"), "regtrack-worker"), "run", "--once",
            "--server", srv.url, "--work-dir", work, "--tbox-group", "vg-box",
            "--capabilities", "host", "--cases-dir", CASES, "--lease-wait", "5"]
    out = subprocess.run(args, env=dict(os.environ, REGTRACK_TOKEN=srv.tokens["worker"]),
                         capture_output=True, text=True, timeout=600)
    errs = [l for l in out.stderr.splitlines() if l.startswith("==")]
    state = srv.psql("SELECT state || ' ' || coalesce(outcome, '') || ' ' || "
                     "(SELECT count(*) FROM runs WHERE job_id = %d) FROM jobs WHERE id = %d"
                     % (jid, jid))
    print("  valgrind exit %d, %d valgrind lines, job: %s" % (out.returncode, len(errs), state))
    for l in errs[:60]:
        print("  " + l)
    if out.returncode != 0 or errs:
        fails.append("valgrind reported errors (exit %d)" % out.returncode)
    if state != "done ok 2":
        fails.append("job ended as '%s'" % state)
    srv.stop()
    return fails


LOADMIX = os.environ.get("REGTRACK_LOADMIX") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "plain", "tests", "faults",
    "loadmix")


def proc_figures(pid):
    """(VmRSS kB, VmHWM kB, open fds, threads) of a live process."""
    rss = hwm = threads = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, hwm, len(os.listdir("/proc/%d/fd" % pid)), threads


def cpu_seconds(pids):
    """User + system CPU seconds of the processes PIDS (gone ones count 0)."""
    hz = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / hz
        except OSError:
            pass
    return total


class Sampler(threading.Thread):
    """The peak RSS, fds and threads of some processes, sampled every 0.25 s."""

    def __init__(self, pids):
        super().__init__(daemon=True)
        self.pids = list(pids)
        self.peak = {p: [0, 0, 0] for p in self.pids}
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            for p in self.pids:
                try:
                    rss, _, fds, th = proc_figures(p)
                except OSError:
                    continue
                pk = self.peak[p]
                pk[0], pk[1], pk[2] = max(pk[0], rss), max(pk[1], fds), max(pk[2], th)
            self.stop.wait(0.25)


def run_loadmix(args, tokens, timeout):
    """Runs tests/faults/loadmix with ARGS; its JSON figures."""
    if not os.path.exists(LOADMIX):
        raise RuntimeError("no %s (make check-faults builds it; set REGTRACK_LOADMIX)" % LOADMIX)
    env = dict(os.environ, LOADMIX_WORKER_TOKEN=tokens["worker"],
               LOADMIX_SUBMIT_TOKEN=tokens["submit"])
    out = subprocess.run([LOADMIX] + [str(a) for a in args], env=env, capture_output=True,
                         text=True, timeout=timeout)
    if out.returncode:
        raise RuntimeError("loadmix exit %d: %s" % (out.returncode, out.stderr[-2000:]))
    for line in out.stderr.splitlines()[:10]:
        print("  loadmix: " + line)
    return json.loads(out.stdout)


def print_latency(res):
    for kind, v in res["latency"].items():
        if v["n"]:
            print("  %-12s n=%-6d p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms"
                  % (kind, v["n"], v["p50_ms"], v["p99_ms"], v["max_ms"]))
    print("  statuses: %s" % json.dumps({k: {c: n for c, n in v.items() if n}
                                         for k, v in res["statuses"].items()}))


def server_times(log, wait):
    """Server-side times per request kind from the access log
    (REGTRACK_ACCESS_LOG=1, as access_log = 1: "access METHOD PATH STATUS
    BYTES MS TOKEN", headers read to reply sent), beside the
    client's: what the server spent, without the client's or the box's
    scheduling delays."""
    import re
    kinds = {}
    pat = re.compile(r" access (GET|POST) (\S+) (\d+) \d+ ([\d.]+) \S+$")
    with open(log, errors="replace") as f:
        for line in f:
            m = pat.search(line.strip())
            if not m:
                continue
            path, st, ms = m.group(2), m.group(3), float(m.group(4))
            if path == "/api/v1/results":
                k = "upload"
            elif path == "/api/v1/jobs/lease":
                k = "lease_empty (past wait_s)" if st == "204" else "lease_job (parked incl.)"
                if st == "204":
                    ms -= wait * 1000
            elif path == "/api/v1/workers/register":
                k = "register"
            elif path == "/api/v1/jobs":
                k = "submit"
            else:
                k = path
            kinds.setdefault(k, []).append(ms)
    print("  server-side (access log):")
    for k, v in sorted(kinds.items()):
        v.sort()
        print("  %-26s n=%-6d p50 %8.2f ms  p99 %8.2f ms  max %8.2f ms"
              % (k, len(v), v[(len(v) - 1) // 2], v[int((len(v) - 1) * 0.99)], v[-1]))


def load():
    """500 workers long-polling and 200 uploads/s for 60 s on loopback."""
    fails = []
    pollers = int(os.environ.get("LOAD_POLLERS", 500))
    rate = int(os.environ.get("LOAD_RATE", 200))
    seconds = int(os.environ.get("LOAD_SECONDS", 60))
    njobs = int(os.environ.get("LOAD_JOBS", pollers))
    wait = 20
    # 500 pollers from one address: past the per-address connection limit
    srv = Server(extra_args=["--max-connections-per-ip", "0"], env={"REGTRACK_ACCESS_LOG": "1"})
    pid = srv.proc.pid
    before = proc_figures(pid)
    print("  server before: RSS %d kB, %d fds, %d threads; ulimit -n of the server %s"
          % (before[0], before[2], before[3], open("/proc/%d/limits" % pid).read().split(
              "Max open files")[1].split()[0]))
    sampler = Sampler([pid])
    sampler.start()
    cpu0, t0 = cpu_seconds([pid]), time.monotonic()
    res = run_loadmix(["--url", srv.url, "--pollers", pollers, "--rate", rate, "--seconds",
                       seconds, "--jobs", njobs, "--jobs-at", max(seconds - 10, 0), "--wait", wait,
                       "--tag", 10, "--series", int(os.environ.get("LOAD_SERIES", 1))],
                      srv.tokens, timeout=seconds + wait + 300)
    cpu_srv, elapsed = cpu_seconds([pid]) - cpu0, time.monotonic() - t0
    # backends started by the run are still connected (the server keeps its connections)
    cpu_pg = cpu_seconds(srv.cluster.pids())
    sampler.stop.set()
    sampler.join()
    if srv.proc.poll() is not None:
        fails.append("the server exited (%s)" % srv.proc.returncode)
        return fails
    after = proc_figures(pid)
    up = res["uploads"]
    print("  %d pollers registered in %.2f s; uploads: %d planned, %d sent in %.2f s = %.1f/s "
          "achieved (target %d/s), %d late, max lag %.1f ms, %d connections"
          % (res["registered"], res["register_seconds"], up["planned"], up["sent"],
             up["send_seconds"], up["achieved_rate"], rate, up["late"], up["max_lag_ms"],
             up["connections"]))
    print_latency(res)
    p99 = res["latency"]["upload"].get("p99_ms")
    print("  upload p99 %.1f ms: the 50 ms target %s (a figure, not an assertion; box load "
          "average %s)" % (p99 or 0, "met" if p99 is not None and p99 <= 50 else "NOT met",
                           open("/proc/loadavg").read().split()[0]))
    jobs = res["jobs"]
    print("  jobs: %d submitted, %d delivered, %d delivered twice, %d undelivered"
          % (jobs["submitted"], jobs["delivered"], jobs["delivered_twice"], jobs["undelivered"]))
    pk = sampler.peak[pid]
    print("  server RSS: before %d kB, peak %d kB, after %d kB (VmHWM %d kB); fds before %d, "
          "peak %d, after %d; threads peak %d"
          % (before[0], pk[0], after[0], after[1], before[2], pk[1], after[2], pk[2]))
    server_times(srv.log.name, wait)
    nreq = sum(v["n"] for v in res["latency"].values())
    print("  CPU: server %.1f s over %.1f s (%.0f%% of one core, %.2f ms per request of %d), "
          "PostgreSQL (all backends, whole life) %.1f s; box load average %s"
          % (cpu_srv, elapsed, 100 * cpu_srv / elapsed, 1e3 * cpu_srv / max(nreq, 1), nreq,
             cpu_pg, open("/proc/loadavg").read().split()[0]))
    print("FIGURES load %s" % json.dumps({
        "pollers": pollers, "rate": rate, "seconds": seconds, "achieved_rate": up["achieved_rate"],
        "latency_ms": res["latency"], "rss_kb": {"before": before[0], "peak": pk[0],
                                                 "after": after[0]},
        "fds": {"before": before[2], "peak": pk[1], "after": after[2]},
        "server_cpu_s": round(cpu_srv, 2), "elapsed_s": round(elapsed, 2),
        "failures": res["failures"]}, sort_keys=True))
    print("  failures: %d" % res["failures"])
    for f in res["failure_list"][:10]:
        print("    %s" % f)
    if res["failures"]:
        fails.append("%d requests failed" % res["failures"])
    if res["registered"] != pollers:
        fails.append("%d of %d pollers registered" % (res["registered"], pollers))
    if up["sent"] != up["planned"] or up["created"] != up["planned"]:
        fails.append("uploads: %d planned, %d sent, %d created"
                     % (up["planned"], up["sent"], up["created"]))
    runs = int(srv.psql("SELECT count(*) FROM runs"))
    distinct = int(srv.psql("SELECT count(DISTINCT run_id) FROM runs"))
    print("  runs in the database: %d (distinct %d) for %d uploads" % (runs, distinct, up["planned"]))
    if runs != up["planned"] or distinct != up["planned"]:
        fails.append("%d runs (%d distinct) stored for %d uploads" % (runs, distinct, up["planned"]))
    rows = srv.psql("SELECT id, state, attempts, leased_by FROM jobs ORDER BY id").splitlines()
    got = {j[0]: j for j in jobs["list"]}
    twice = [r for r in rows if r.split("|")[1] != "leased" or r.split("|")[2] != "1"]
    machines = {r.split("|")[3] for r in rows}
    print("  jobs in the database: %d, not leased exactly once: %d, distinct holders %d"
          % (len(rows), len(twice), len(machines)))
    if len(rows) != njobs or jobs["submitted"] != njobs:
        fails.append("%d jobs in the database, %d submitted, %d wanted"
                     % (len(rows), jobs["submitted"], njobs))
    if twice:
        fails.append("jobs not leased exactly once: %s" % twice[:10])
    if jobs["delivered"] != njobs or jobs["delivered_twice"] or jobs["not_submitted_here"]:
        fails.append("jobs: %d delivered of %d, %d twice, %d unknown"
                     % (jobs["delivered"], njobs, jobs["delivered_twice"],
                        jobs["not_submitted_here"]))
    for r in rows:
        jid, _, _, holder = r.split("|")
        if int(jid) in got and str(got[int(jid)][1]) != holder:
            fails.append("job %s delivered to machine %s but leased by %s in the database"
                         % (jid, got[int(jid)][1], holder))
            break
    if len(machines) != len(rows):
        fails.append("%d jobs held by %d machines (each poller holds one)"
                     % (len(rows), len(machines)))
    srv.stop()
    return fails


NGINX_CONF = """daemon off;
worker_processes 1;
pid %(t)s/nginx.pid;
error_log %(t)s/logs/error.log warn;
events { worker_connections 4096; }
http {
	log_format up '$msec|$request_method|$uri|$status|$upstream_addr|$upstream_status';
	access_log %(t)s/logs/access.log up;
	client_body_temp_path %(t)s/body;
	proxy_temp_path %(t)s/proxy;
	fastcgi_temp_path %(t)s/fastcgi;
	uwsgi_temp_path %(t)s/uwsgi;
	scgi_temp_path %(t)s/scgi;
	client_max_body_size 64m;
	upstream regtrack {
		server %(a)s max_fails=1 fail_timeout=10s;
		server %(b)s max_fails=1 fail_timeout=10s;
		# no upstream keepalive: a request started after a server died must
		# meet a refused connect (which nginx passes on to the other server,
		# POSTs included), not a cached connection to the dead one (a POST
		# sent down it is not retried: 502)
	}
	server {
		listen 127.0.0.1:%(p)d;
		proxy_connect_timeout 2s;
		# long polls park up to 60 s
		proxy_read_timeout 120s;
		# idempotent requests (GET, HEAD) go to the other server when one
		# refuses or drops the connection; a POST only when it was never sent
		proxy_next_upstream error timeout;
		proxy_next_upstream_tries 2;
		location / {
			proxy_pass http://regtrack;
		}
		# POSTs that are idempotent: a result document (a second copy of its
		# run_id is a no-op, 200) and a job's heartbeat or complete (the same
		# machine again: "already", 200). Everything else that POSTs (a lease,
		# a job submit, a bisect) gets 502 when its server dies under it.
		location = /api/v1/results {
			proxy_pass http://regtrack;
			proxy_next_upstream error timeout non_idempotent;
		}
		location ~ ^/api/v1/jobs/[0-9]+/(complete|heartbeat)$ {
			proxy_pass http://regtrack;
			proxy_next_upstream error timeout non_idempotent;
		}
	}
}
"""


def start_nginx(tmp, a, b):
    """nginx in the foreground with its own prefix TMP, proxying to A and B."""
    import shutil
    import socket
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        raise RuntimeError("nginx is not installed (deploy/install-deps)")
    os.makedirs(os.path.join(tmp, "logs"))
    os.chmod(tmp, 0o755)
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        port = so.getsockname()[1]
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF % {"t": tmp, "a": a, "b": b, "p": port})
    proc = subprocess.Popen([nginx, "-p", tmp, "-c", conf, "-e",
                             os.path.join(tmp, "logs", "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, "http://127.0.0.1:%d" % port
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("nginx: %s" % proc.stderr.read().decode())
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise RuntimeError("nginx did not start")


def peer(srv, extra_args=()):
    """A second server process on SRV's database (same tokens)."""
    other = Server.__new__(Server)
    other.cluster, other.dbname, other.conninfo = srv.cluster, srv.dbname, srv.conninfo
    other.extra_args, other.env, other.tokens = list(extra_args), srv.env, srv.tokens
    other.proc = None
    other.start()
    return other


def nginx_failover():
    """Two servers on one database behind nginx; fake workers lease, run
    and complete jobs through nginx while results are uploaded; one server
    is SIGKILLed mid-way. Requests started after the kill all succeed (nginx
    sends them to the other server); of those in flight at the kill only
    non-idempotent ones (leases) may fail, with 502, and are retried by the
    worker. No job is delivered twice or completed twice; every job done,
    every document stored once."""
    import tempfile
    fails = []
    lease_s = 5
    # behind nginx every connection comes from its address: nginx limits per client
    a = Server(extra_args=["--lease-timeout", str(lease_s), "--max-connections-per-ip", "0"])
    b = peer(a, ["--lease-timeout", str(lease_s), "--max-connections-per-ip", "0"])
    tmp = tempfile.mkdtemp(prefix="nginx-", dir=os.environ.get("REGTRACK_TEST_TMP"))
    ngx, url = start_nginx(tmp, a.addr, b.addr)
    workers, njobs, rate, seconds, kill_at = 100, 3000, 50, 30, 8.0
    try:
        env = dict(os.environ, LOADMIX_WORKER_TOKEN=a.tokens["worker"],
                   LOADMIX_SUBMIT_TOKEN=a.tokens["submit"])
        args = [LOADMIX, "--url", url, "--submit-url", b.url, "--pollers", workers, "--rate",
                rate, "--seconds", seconds, "--jobs", njobs, "--jobs-at", 0, "--wait", 5,
                "--complete", "--run-ms", 500, "--retry", "--tag", 11, "--tbox", "ngx-box",
                "--max-seconds", 240]
        lm = subprocess.Popen([str(x) for x in args], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        time.sleep(kill_at)
        done_before = int(a.psql("SELECT count(*) FROM jobs WHERE state = 'done'"))
        t_signal = time.monotonic()
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait()
        # dead and reaped: until its exit closes the listening socket (after
        # unmapping its memory: tens of ms, more under ASan) the kernel still
        # completes connects to it, and those requests die with it
        t_kill = time.monotonic()
        print("  server A (%s) SIGKILLed %.1f s into the run (gone %.0f ms after the signal), "
              "%d jobs done by then" % (a.addr, kill_at, (t_kill - t_signal) * 1e3, done_before))
        try:
            out, err = lm.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            lm.kill()
            out, err = lm.communicate()
            fails.append("loadmix did not finish")
        for line in err.splitlines()[:10]:
            print("  loadmix: " + line)
        res = json.loads(out)
    finally:
        stop_process(ngx, signal.SIGQUIT, 20)
    up = res["uploads"]
    print("  %d workers through nginx; uploads %d planned, %d sent, %.1f/s achieved"
          % (res["registered"], up["planned"], up["sent"], up["achieved_rate"]))
    print_latency(res)
    # the access log: which server answered what, before and after the kill
    t_kill_wall = time.time() - (time.monotonic() - t_kill)
    per = {}
    with open(os.path.join(tmp, "logs", "access.log")) as f:
        for line in f:
            ts, method, uri, st, ups, upst = line.rstrip("\n").split("|")[:6]
            when = "before" if float(ts) < t_kill_wall else "after"
            kind = "lease" if uri.endswith("/lease") else "complete" if uri.endswith(
                "/complete") else "results" if uri.endswith("/results") else "other"
            # "A, B": nginx sent it to A, then to B
            who = " then ".join("A" if u.strip() == a.addr else "B" if u.strip() == b.addr
                                else u.strip() for u in ups.split(","))
            key = "%s the kill: %s %s by %s -> %s (%s)" % (when, method, kind, who, st, upst)
            per[key] = per.get(key, 0) + 1
    for k in sorted(per):
        print("    nginx %-68s %d" % (k, per[k]))
    served_a = sum(n for k, n in per.items() if k.startswith("before the kill: POST lease by A -> 200"))
    served_b = sum(n for k, n in per.items() if k.startswith("before the kill: POST lease by B -> 200"))
    if not served_a or not served_b:
        fails.append("leases before the kill were not served by both servers (A %d, B %d)"
                     % (served_a, served_b))
    # failures: only requests in flight at the kill, only leases (not idempotent)
    inflight, later = [], []
    for f in res["failure_list"]:
        (inflight if f["t0"] <= t_kill + 0.01 else later).append(f)
    for f in later:
        f["started_after_kill_s"] = round(f["t0"] - t_kill, 3)
    kinds = sorted({"%s %s" % (f["kind"], f["status"]) for f in inflight})
    print("  failed requests: %d in flight at the kill (%s), %d started after it; %d retried"
          % (len(inflight), ", ".join(kinds) or "-", len(later), res["retries"]))
    if res["failures"] > len(res["failure_list"]):
        fails.append("more failures than listed: %d" % res["failures"])
    if later:
        fails.append("%d requests started after the kill failed: %s" % (len(later), later[:5]))
    bad = [f for f in inflight if f["kind"] != "lease"]
    if bad:
        fails.append("idempotent requests in flight at the kill failed (nginx should have "
                     "retried them): %s" % bad[:5])
    jobs = res["jobs"]
    print("  jobs: %d submitted, %d delivered, %d completed, %d delivered twice, %d undelivered"
          % (jobs["submitted"], jobs["delivered"], jobs["completed"], jobs["delivered_twice"],
             jobs["undelivered"]))
    if (jobs["submitted"] != njobs or jobs["delivered"] != njobs or jobs["completed"] != njobs
            or jobs["delivered_twice"] or jobs["not_submitted_here"]):
        fails.append("jobs: %s" % {k: v for k, v in jobs.items() if k != "list"})
    rows = b.psql("SELECT j.state, j.attempts, (SELECT count(*) FROM runs r WHERE r.job_id = j.id) "
                  "FROM jobs j").splitlines()
    states = {}
    for r in rows:
        states[r] = states.get(r, 0) + 1
    print("  jobs in the database by (state|attempts|runs): %s" % states)
    wrong = {k: n for k, n in states.items() if not k.startswith("done|") or not k.endswith("|1")}
    if wrong or len(rows) != njobs:
        fails.append("%d jobs in the database, not done with exactly one run: %s"
                     % (len(rows), wrong))
    # a lease the killed server granted but never answered: the job stays
    # leased to that machine until lease_timeout_s, then is leased again
    relet = sum(n for k, n in states.items() if k.split("|")[1] != "1")
    lost = sum(1 for f in inflight if f["kind"] == "lease")
    print("  jobs leased a second time after their first lease (granted by the killed server, "
          "answered to nobody) expired: %d; leases lost in flight: %d" % (relet, lost))
    if relet > lost or any(int(k.split("|")[1]) > 2 for k in states):
        fails.append("%d jobs leased again for %d leases lost at the kill" % (relet, lost))
    runs = int(b.psql("SELECT count(*) FROM runs WHERE job_id IS NULL"))
    distinct = int(b.psql("SELECT count(DISTINCT run_id) FROM runs WHERE job_id IS NULL"))
    print("  uploaded runs in the database: %d (distinct %d) for %d documents (%d answered 201, "
          "%d answered 200: stored by the killed server before it died, sent again by nginx)"
          % (runs, distinct, up["planned"], up["created"], up["planned"] - up["created"]))
    if runs != up["planned"] or distinct != up["planned"] or up["sent"] != up["planned"]:
        fails.append("%d uploaded runs (%d distinct) for %d documents"
                     % (runs, distinct, up["planned"]))
    if b.proc.poll() is not None:
        fails.append("server B exited")
    a.stop()
    b.stop()
    return fails


# --- hostile clients ------------------------------------------

class Legit:
    """A legitimate client from another loopback address (127.0.0.2): the
    per-address limit applies to the attacker, not to it. Runs /healthz
    and an authenticated upload in turns until stopped; keeps latencies."""

    def __init__(self, srv):
        import http.client
        self.http = http.client
        self.host, self.port = srv.addr.rsplit(":", 1)
        self.token = srv.tokens["submit"]
        self.lat = {"healthz": [], "upload": []}
        self.fails = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def one(self, kind):
        c = self.http.HTTPConnection(self.host, int(self.port), timeout=5,
                                     source_address=("127.0.0.2", 0))
        t0 = time.monotonic()
        try:
            if kind == "healthz":
                c.request("GET", "/healthz")
            else:
                doc = result_doc(sha("e"), metrics={"legit.m": [1.0]})
                c.request("POST", "/api/v1/results", body=json.dumps(doc),
                          headers={"Authorization": "Bearer " + self.token,
                                   "Content-Type": "application/json"})
            r = c.getresponse()
            r.read()
            status = r.status
        except OSError as e:
            status = "%s" % e
        finally:
            c.close()
        dt = time.monotonic() - t0
        self.lat[kind].append(dt)
        if status not in (200, 201):
            self.fails.append("%s: %s after %.2f s" % (kind, status, dt))

    def run(self):
        for i in range(10000):
            if self.stop.is_set():
                return
            self.one("healthz" if i % 2 == 0 else "upload")
            time.sleep(0.2)

    def start(self):
        self.thread.start()

    def finish(self, fails, limit=1.0):
        self.stop.set()
        self.thread.join()
        for kind, xs in self.lat.items():
            xs = sorted(xs)
            if not xs:
                fails.append("legitimate %s never answered" % kind)
                continue
            print("  legitimate %-7s n=%d p50 %.1f ms max %.1f ms" %
                  (kind, len(xs), 1e3 * xs[len(xs) // 2], 1e3 * xs[-1]))
            if xs[-1] > limit:
                fails.append("legitimate %s took %.2f s" % (kind, xs[-1]))
        fails.extend(self.fails[:5])


def raise_nofile(n):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, n))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return want


def flood():
    import socket
    fails = []
    srv = Server()
    host, port = srv.addr.rsplit(":", 1)
    limit = raise_nofile(4000 + 256)
    n = min(4000, limit - 200)
    legit = Legit(srv)
    legit.start()
    time.sleep(1)
    socks, refused = [], 0
    t0 = time.monotonic()
    for _ in range(n):
        so = socket.socket()
        so.setblocking(False)
        try:
            so.connect((host, int(port)))
        except BlockingIOError:
            pass
        except OSError:
            refused += 1
            so.close()
            continue
        socks.append(so)
    opened = time.monotonic() - t0
    time.sleep(3)
    rss, hwm, fds, threads = proc_figures(srv.proc.pid)
    # the sockets the server closed read as EOF (or reset)
    closed = 0
    for so in socks:
        try:
            if so.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    print("  %d sockets from 127.0.0.1 in %.2f s (%d refused at connect): the server "
          "closed %d, keeps %d; server RSS %d kB, %d fds" %
          (n, opened, refused, closed, n - refused - closed, rss, fds))
    time.sleep(15)
    legit.finish(fails)
    for so in socks:
        so.close()
    if srv.get("/healthz").status != 200:
        fails.append("healthz after the flood")
    srv.stop()
    return fails


def slow_headers():
    import socket
    fails = []
    srv = Server()
    host, port = srv.addr.rsplit(":", 1)
    legit = Legit(srv)
    legit.start()
    socks = []
    for _ in range(100):
        so = socket.create_connection((host, int(port)))
        so.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        so.setblocking(False)
        socks.append(so)
    t0 = time.monotonic()
    closed_at = [None] * len(socks)
    for _ in range(9):
        for i, so in enumerate(socks):
            if closed_at[i] is not None:
                continue
            try:
                if so.recv(1) == b"":
                    closed_at[i] = time.monotonic() - t0
                    continue
            except BlockingIOError:
                pass
            except OSError:
                closed_at[i] = time.monotonic() - t0
                continue
            try:
                so.sendall(b"X-Drip: 1\r\n")
            except OSError:
                closed_at[i] = time.monotonic() - t0
        if all(c is not None for c in closed_at):
            break
        time.sleep(5)
    got = sorted(c for c in closed_at if c is not None)
    print("  100 connections dripping a header line every 5 s: %d closed by the server, "
          "first at %.1f s, last at %.1f s" %
          (len(got), got[0] if got else -1, got[-1] if got else -1))
    if len(got) < len(socks) or got[-1] > 40:
        fails.append("%d of 100 dripping connections still open (or closed past 40 s)" %
                     (len(socks) - len(got)))
    legit.finish(fails)
    for so in socks:
        so.close()
    srv.stop()
    return fails


def forged_completion(srv):
    """A second worker token completes the job leased by the first's
    machine with forged results: the number of runs that got stored."""
    reg = {"arch": "x86_64", "tbox_group": "forge-box", "capabilities": ["host"]}
    owner = srv.token("worker")
    thief = srv.token("worker")

    def call(path, body, token):
        req = urllib.request.Request(srv.url + path, data=json.dumps(body).encode(),
                                     method="POST")
        req.add_header("Authorization", "Bearer " + token)
        req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read() or b"{}")
        except urllib.error.HTTPError as e:
            return e.code, {}
    _, m = call("/api/v1/workers/register", dict(reg, hostname="forge-1"), owner)
    st, job = call("/api/v1/jobs", {"commit": sha("f"), "kconfig": "host",
                                    "testcase": "small-allocs", "tbox_group": "forge-box",
                                    "params": {"n": 1}}, srv.tokens["submit"])
    _, lease = call("/api/v1/jobs/lease", {"machine_id": m["machine_id"]}, owner)
    jid = lease["job"]["id"]
    doc = result_doc(sha("f"), testcase="small-allocs", job_id=jid, params={"n": 1},
                     kconfig="host", metrics={"small-allocs.throughput": [666.0]})
    accepted = 0
    for body in ({"machine_id": m["machine_id"], "status": "ok", "results": [doc]},
                 {"status": "ok", "results": [doc]}):
        st, _ = call("/api/v1/jobs/%d/complete" % jid, body, thief)
        accepted += st == 200
    return accepted, int(srv.psql("SELECT count(*) FROM runs WHERE job_id = %d" % jid))


def unauth_bodies():
    import socket
    fails = []
    srv = Server()
    host, port = srv.addr.rsplit(":", 1)
    rss0 = proc_figures(srv.proc.pid)[0]
    legit = Legit(srv)
    legit.start()
    peak = [rss0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], proc_figures(srv.proc.pid)[0])
            time.sleep(0.05)
    sampler = threading.Thread(target=sample)
    sampler.start()
    size = 15_000_000
    chunk = b"x" * 65536
    results = [None] * 20

    def attacker(i):
        so = socket.create_connection((host, int(port)))
        so.settimeout(5)
        t0 = time.monotonic()
        sent = 0
        reply = b""
        try:
            so.sendall(b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\n"
                       b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % size)
            while sent < size:
                sent += so.send(chunk[:min(len(chunk), size - sent)])
        except OSError:
            pass
        try:
            while True:
                b = so.recv(65536)
                if not b:
                    break
                reply += b
        except OSError:
            pass
        so.close()
        results[i] = (reply.split(b"\r\n", 1)[0].decode(errors="replace"), sent,
                      time.monotonic() - t0)
    threads = [threading.Thread(target=attacker, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    time.sleep(1)
    done.set()
    sampler.join()
    statuses = {}
    for r in results:
        key = r[0] if r else "no reply"
        statuses[key] = statuses.get(key, 0) + 1
    sent = sorted(r[1] for r in results if r)
    print("  20 unauthenticated 15 MB bodies: replies %s; bytes sent before the close "
          "median %d, max %d" % (statuses, sent[len(sent) // 2], sent[-1]))
    print("  server RSS %d kB before, peak %d kB (+%d kB)" % (rss0, peak[0], peak[0] - rss0))
    if statuses.get("HTTP/1.1 401 Unauthorized", 0) != 20:
        fails.append("not every unauthenticated body got 401: %s" % statuses)
    if peak[0] - rss0 > 32 * 1024:
        fails.append("RSS grew by %d kB (bound 32 MB)" % (peak[0] - rss0))
    accepted, runs = forged_completion(srv)
    print("  forged completions by another worker token: %d accepted, %d runs stored" %
          (accepted, runs))
    if accepted or runs:
        fails.append("%d forged completions accepted, %d runs stored" % (accepted, runs))
    legit.finish(fails)
    srv.stop()
    return fails


def nginx_conf():
    """deploy/nginx/regtrack.conf in front of a server, on free ports."""
    import shutil
    import socket
    import ssl
    import tempfile
    fails = []
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    srv = Server(extra_args=["--max-connections-per-ip", "0"])
    tmp = tempfile.mkdtemp(prefix="regtrack-nginx-")
    os.makedirs(os.path.join(tmp, "logs"))
    ports = []
    for _ in range(2):
        with socket.socket() as so:
            so.bind(("127.0.0.1", 0))
            ports.append(so.getsockname()[1])
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-keyout", tmp + "/privkey.pem",
                    "-out", tmp + "/fullchain.pem"], check=True, capture_output=True)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "deploy", "nginx", "regtrack.conf")) as f:
        site = f.read()
    site = (site.replace("/etc/ssl/regtrack", tmp).replace("127.0.0.1:8080", srv.addr)
            .replace("listen 443 ssl http2;", "listen 127.0.0.1:%d ssl;" % ports[1])
            .replace("listen [::]:443 ssl http2;", "")
            .replace("listen 80;", "listen 127.0.0.1:%d;" % ports[0])
            .replace("listen [::]:80;", ""))
    with open(os.path.join(tmp, "site.conf"), "w") as f:
        f.write(site)
    with open(os.path.join(tmp, "nginx.conf"), "w") as f:
        f.write("daemon off;\npid %(t)s/nginx.pid;\nerror_log %(t)s/logs/error.log warn;\n"
                "events { worker_connections 1024; }\nhttp {\naccess_log %(t)s/logs/access.log;\n"
                "client_body_temp_path %(t)s/body;\nproxy_temp_path %(t)s/proxy;\n"
                "fastcgi_temp_path %(t)s/fastcgi;\nuwsgi_temp_path %(t)s/uwsgi;\n"
                "scgi_temp_path %(t)s/scgi;\ninclude %(t)s/site.conf;\n}\n" % {"t": tmp})
    proc = subprocess.Popen([nginx, "-p", tmp, "-c", tmp + "/nginx.conf", "-e",
                             tmp + "/logs/error.log"], stderr=subprocess.PIPE)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE

    def tls(data):
        for _ in range(100):
            try:
                so = socket.create_connection(("127.0.0.1", ports[1]), timeout=5)
                break
            except OSError:
                time.sleep(0.05)
        so = ctx.wrap_socket(so)
        out = b""
        try:
            so.sendall(data)
            while True:
                b = so.recv(65536)
                if not b:
                    break
                out += b
        except OSError:
            pass
        so.close()
        return out
    try:
        out = tls(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        print("  /healthz through nginx (TLS): %s" % out.split(b"\r\n", 1)[0].decode())
        if not out.startswith(b"HTTP/1.1 200"):
            fails.append("healthz through nginx: %r" % out[:200])
        before = srv.psql("SELECT count(*) FROM runs")
        for name, req in (
                ("two Content-Length", b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Length: 2\r\nContent-Length: 30\r\n\r\n{}"),
                ("Content-Length not a number", b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Length: 2x\r\n\r\n{}"),
                ("17 MB body", b"POST /api/v1/results HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Length: 17825792\r\n\r\n")):
            out = tls(req)
            head, _, body = out.partition(b"\r\n\r\n")
            status = head.split(b"\r\n", 1)[0].decode()
            try:
                code = json.loads(body)["error"]["code"]
            except ValueError:
                code = "not JSON: %r" % body[:80]
            print("  %-28s -> %s, %s" % (name, status, code))
            if status[9:12] not in ("400", "413") or code.startswith("not JSON"):
                fails.append("%s: %s %s" % (name, status, code))
        if srv.psql("SELECT count(*) FROM runs") != before:
            fails.append("a refused request stored a run")
        with socket.create_connection(("127.0.0.1", ports[0]), timeout=5) as so:
            so.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            first = so.recv(4096).split(b"\r\n", 1)[0].decode()
        print("  plain HTTP: %s" % first)
        if "301" not in first:
            fails.append("plain HTTP is not redirected: %s" % first)
    finally:
        stop_process(proc)
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return fails


# --- a stalled upstream and a flooded queue -------------------

class Prober:
    """/healthz every 0.2 s, and a worker (tbox_group "probe") long-polling
    with wait_s 5 while a host job for it is queued 0.5 s into each poll:
    the latency of each /healthz, and from each job's submission to the
    poll that delivers it."""

    def __init__(self, srv):
        self.srv = srv
        r = srv.post("/api/v1/workers/register", {
            "hostname": "prober", "arch": "x86_64", "tbox_group": "probe", "nr_cpus": 2,
            "memory_mb": 2048, "cpu_model": "test", "capabilities": ["host"],
            "fingerprint": {}}, scope="worker")
        assert r.status == 200, r
        self.mid = r.json()["machine_id"]
        self.lat = {"healthz": [], "delivery": []}
        self.fails = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.healthz), threading.Thread(target=self.polls)]

    def healthz(self):
        while not self.stop.is_set():
            t0 = time.monotonic()
            try:
                status = self.srv.get("/healthz", timeout=30).status
            except OSError as e:
                status = str(e)
            self.lat["healthz"].append(time.monotonic() - t0)
            if status != 200:
                self.fails.append("healthz: %s" % status)
            time.sleep(0.2)

    def polls(self):
        n = 0
        while not self.stop.is_set():
            n += 1
            got = {}

            def poll():
                try:
                    got["r"] = self.srv.post("/api/v1/jobs/lease", {
                        "machine_id": self.mid, "wait_s": 5}, scope="worker", timeout=60)
                except OSError as e:
                    got["r"] = e
                got["t"] = time.monotonic()
            t = threading.Thread(target=poll)
            t.start()
            time.sleep(0.5)
            ts = time.monotonic()
            r = self.srv.post("/api/v1/jobs", {
                "commit": sha("%x" % (n % 16)), "kconfig": "host", "testcase": "small-allocs",
                "params": {"nr_task": 1}, "tbox_group": "probe"}, scope="submit", timeout=60)
            t.join()
            if r.status != 201:
                self.fails.append("submit: %s" % r)
                continue
            job = r.json()["id"]
            got_r = got["r"]
            if isinstance(got_r, Exception) or got_r.status != 200 or \
                    got_r.json()["job"]["id"] != job:
                self.fails.append("poll %d did not deliver job %d: %s" % (n, job, got_r))
            else:
                self.lat["delivery"].append(max(0.0, got["t"] - ts))
            self.srv.post("/api/v1/jobs/%d/cancel" % job, scope="submit")

    def start(self):
        for t in self.threads:
            t.start()

    def finish(self, fails, limit=1.0):
        self.stop.set()
        for t in self.threads:
            t.join()
        for kind, xs in self.lat.items():
            xs = sorted(xs)
            if not xs:
                fails.append("no %s measured" % kind)
                continue
            print("  %-8s n=%d p50 %.1f ms max %.1f ms" %
                  (kind, len(xs), 1e3 * xs[len(xs) // 2], 1e3 * xs[-1]))
            slow = [x for x in xs if x > limit]
            if slow:
                fails.append("%d of %d %s over %.1f s (max %.2f s)" %
                             (len(slow), len(xs), kind, limit, xs[-1]))
        fails.extend(self.fails[:5])


# more than the server's 8 HTTP threads (threads): on them, these requests once held all
NR_STALLED_REQUESTS = 10


def stalled_upstream():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "integration"))
    from test_stall import StallServer
    fails = []
    srv = Server()
    stall = StallServer()
    url = "http://127.0.0.1:%d/linux.git" % stall.port
    for i in range(3):
        r = srv.post("/api/v1/trees", {"name": "stalled%d" % i, "url": url,
                                       "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r
        srv.post("/api/v1/trees/stalled%d/poll" % i, scope="submit")
    prober = Prober(srv)
    prober.start()
    requests = []

    def request(i):
        try:
            t0 = time.monotonic()
            r = srv.post("/api/v1/requests", {
                "tree": "stalled0", "base": "master", "head": "refs/heads/x%d" % i,
                "testcases": [{"testcase": "small-allocs", "params": {"nr_task": 1}}],
                "targets": ["x86_64"], "kconfig": "x86_64-defconfig"}, scope="submit",
                timeout=300)
            requests.append((r.status, time.monotonic() - t0,
                             r.json().get("url") if r.status == 202 else r.body))
        except OSError as e:
            requests.append(("%s" % e.__class__.__name__, 0, None))
    threads = [threading.Thread(target=request, args=(i,)) for i in range(NR_STALLED_REQUESTS)]
    for t in threads:
        t.start()
    time.sleep(30)
    print("  %d connections to the stalled remote; requests answered so far: %s" %
          (len(stall.conns), [(x[0], round(x[1], 2)) for x in requests]))
    prober.finish(fails)
    # each accepted at once (202, resolving in the background; ten at once on the pool: a
    # few seconds on a loaded machine, not git's timeout), none left without a reply
    if len(requests) != NR_STALLED_REQUESTS or [x for x in requests if x[0] != 202 or x[1] > 5]:
        fails.append("requests naming the stalled tree: %s" % requests)
    stall.close()
    for t in threads:
        t.join(timeout=120)
    # the stall ends (the remote closes): each request fails with the fetch's reason
    deadline = time.monotonic() + 120
    states = {}
    while time.monotonic() < deadline:
        states = {u: srv.get(u, scope="read").json() for _, _, u in requests if u}
        if states and all(q["state"] == "failed" for q in states.values()):
            break
        time.sleep(1)
    print("  the requests naming it: %s" % sorted({q["state"] for q in states.values()}))
    bad = [(u, q["state"], q.get("fail_reason")) for u, q in states.items()
           if q["state"] != "failed" or "fetching tree 'stalled0' failed" not in
           (q.get("fail_reason") or "")]
    if bad or len(states) != NR_STALLED_REQUESTS:
        fails.append("requests naming the stalled tree did not fail with the fetch's reason: "
                     "%s" % bad[:3])
    srv.stop()
    return fails


def queue_flood():
    fails = []
    srv = Server()
    t0 = time.monotonic()
    srv.cluster.psql(
        "INSERT INTO commits (sha) VALUES (repeat('f', 40));"
        "INSERT INTO testcases (name) VALUES ('flood') ON CONFLICT DO NOTHING;"
        "INSERT INTO jobs (commit_id, testcase_id, kconfig, compiler, tbox_group, "
        "need_capability, priority) SELECT (SELECT id FROM commits WHERE sha = "
        "repeat('f', 40)), (SELECT id FROM testcases WHERE name = 'flood'), 'host', 'gcc', "
        "'nobody-has-it', 'host', 10 FROM generate_series(1, 100000); ANALYZE jobs;",
        db=srv.dbname)
    print("  100,000 unleasable jobs queued in %.1f s" % (time.monotonic() - t0))
    stop = threading.Event()

    def parked(i):
        r = srv.post("/api/v1/workers/register", {
            "hostname": "parked%d" % i, "arch": "x86_64", "tbox_group": "other%d" % i,
            "nr_cpus": 2, "memory_mb": 2048, "cpu_model": "test", "capabilities": ["host"],
            "fingerprint": {}}, scope="worker")
        mid = r.json()["machine_id"]
        while not stop.is_set():
            r = srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 10},
                         scope="worker", timeout=60)
            if r.status != 204:
                fails.append("parked worker %d: %s" % (i, r))
                return
    pollers = [threading.Thread(target=parked, args=(i,)) for i in range(20)]
    for t in pollers:
        t.start()
    prober = Prober(srv)
    prober.start()
    time.sleep(30)
    prober.finish(fails)
    stop.set()
    for t in pollers:
        t.join()
    srv.stop()
    return fails


# the profiles of the memory scenario: ~3.5 MiB of distinct folded stacks each
MEM_PROFILES = 12
MEM_LINES = 99000


def mem_folded(seed):
    return "".join("app;do_work_%05d;inner_%d;leaf_%d %d\n"
                   % (i, (i * seed) % 97, i % 13, 1 + i % 5) for i in range(MEM_LINES))


def memory_return():
    """RSS after a burst of 4 MiB-class uploads and after a burst of profile diffs
    over them: what the server keeps once the burst is over (glibc keeps freed memory
    in its arenas unless it is trimmed)."""
    import tempfile
    fails = []
    # no reply cache: it keeps up to profile_diff_cache_mb by design, and the six diffs
    # (each its own limit=) are computed, not served from it
    conf = tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False)
    conf.write("auto_bisect = 0\nprofile_diff_cache_mb = 0\n")
    conf.close()
    srv = Server(extra_args=["--config", conf.name])
    os.unlink(conf.name)
    pid = srv.proc.pid
    rss0 = proc_figures(pid)[0]
    base, head = sha("d1"), sha("d2")
    docs = []
    for i in range(MEM_PROFILES):
        folded = mem_folded(i + 1)
        samples = sum(int(x.rsplit(" ", 1)[1]) for x in folded.splitlines())
        docs.append(result_doc(base if i % 2 else head, testcase="mem-profile",
                               metrics={"mem.ops": [1.0 + i]}, monitors=["perf-profile"],
                               profile={"event": "cpu-clock", "samples": samples,
                                        "folded": folded}))
    peak = [rss0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], proc_figures(pid)[0])
            time.sleep(0.05)
    sampler = threading.Thread(target=sample)
    sampler.start()
    statuses = []

    def upload(part):
        for d in part:
            statuses.append(srv.post("/api/v1/results", d, scope="submit", timeout=120).status)
    t0 = time.monotonic()
    threads = [threading.Thread(target=upload, args=(docs[k::4],)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    took = time.monotonic() - t0
    time.sleep(2)
    rss_up, peak_up = proc_figures(pid)[0], peak[0]
    diffs = []

    def diff(k):
        for i in range(3):
            r = srv.get("/api/v1/profile-diff?base=%s&head=%s&testcase=mem-profile&folded=1"
                        "&limit=%d" % (base, head, 50 + 3 * k + i), scope="read", timeout=300)
            diffs.append((r.status, r.headers.get("X-Regtrack-Cache")))
    t1 = time.monotonic()
    threads = [threading.Thread(target=diff, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)
    took_diff = time.monotonic() - t1
    time.sleep(2)
    done.set()
    sampler.join()
    rss_diff = proc_figures(pid)[0]
    mb = lambda kb: kb / 1024.0  # noqa: E731
    print("  %d uploads of %.1f MiB profiles in %.1f s: %s" %
          (len(docs), len(docs[0]["profile"]["folded"]) / 1048576.0, took, sorted(set(statuses))))
    print("  6 profile diffs (2 at a time) in %.1f s: %s" % (took_diff, sorted(set(diffs))))
    print("  server RSS MiB: start %.1f, after the uploads %.1f (peak %.1f), after the diffs "
          "%.1f (peak %.1f)" % (mb(rss0), mb(rss_up), mb(peak_up), mb(rss_diff), mb(peak[0])))
    if set(statuses) != {201}:
        fails.append("uploads answered %s" % sorted(set(statuses)))
    if set(diffs) != {(200, "miss")}:
        fails.append("diffs answered %s" % sorted(set(diffs)))
    # what stays once the bursts are over: the buffers of a few requests, not the bursts'
    for what, rss in (("uploads", rss_up), ("diffs", rss_diff)):
        if rss - rss0 > MEM_KEPT_MAX_KB:
            fails.append("after the %s the server kept %.1f MiB more than at its start (bound "
                         "%.1f MiB)" % (what, mb(rss - rss0), mb(MEM_KEPT_MAX_KB)))
    srv.stop()
    return fails


MEM_KEPT_MAX_KB = 96 * 1024


SCENARIOS = {"kill-server": kill_server, "pg-restart": pg_restart, "worker-kill": worker_kill,
             "worker-valgrind": worker_valgrind, "load": load, "nginx-failover": nginx_failover,
             "flood": flood, "slow-headers": slow_headers, "unauth-bodies": unauth_bodies,
             "nginx-conf": nginx_conf, "stalled-upstream": stalled_upstream,
             "queue-flood": queue_flood, "memory-return": memory_return}

if __name__ == "__main__":
    names = sys.argv[1:] or list(SCENARIOS)
    failed = 0
    for name in names:
        print("== %s" % name, flush=True)
        t0 = time.monotonic()
        fails = SCENARIOS[name]()
        for f in fails:
            print("  FAIL: " + f)
        print("== %s: %s (%.1f s)" % (name, "FAIL" if fails else "ok", time.monotonic() - t0),
              flush=True)
        failed += bool(fails)
    from harness import Cluster
    if Cluster._instance:
        Cluster._instance.stop()
    sys.exit(1 if failed else 0)
