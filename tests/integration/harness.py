"""Test harness: a throwaway PostgreSQL cluster (deploy/pg-local in a temp
data directory), the real regtrack-server on port 0, tokens of each scope,
and a small HTTP client over real sockets. Standard library only; run with
Debian's /usr/bin/python3.

Environment: REGTRACK_BIN (dir with the binaries, default bin/),
REGTRACK_TEST_TMP (where clusters go, default a new temp dir).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("REGTRACK_BIN", os.path.join(TOP, "bin"))
PG_LOCAL = os.path.join(TOP, "deploy", "pg-local")


def stop_process(proc, sig=signal.SIGTERM, timeout=30):
    """Sends sig to proc (when it still runs), waits up to timeout seconds,
    then kills it; returns its exit status."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


class Cluster:
    """One PostgreSQL cluster for a whole test run; a fresh database per user."""

    _lock = threading.Lock()
    _instance = None

    def __init__(self):
        base = os.environ.get("REGTRACK_TEST_TMP") or tempfile.mkdtemp(prefix="regtrack-test-")
        self.tmp = base
        self.data = os.path.join(base, "pg")
        self.port = str(20000 + os.getpid() % 20000)
        self.env = dict(os.environ, REGTRACK_PGDATA=self.data, REGTRACK_PGPORT=self.port)
        out = subprocess.run([PG_LOCAL, "start"], env=self.env, check=True,
                             capture_output=True, text=True, timeout=120)
        self.base_conninfo = out.stdout.strip().splitlines()[-1]
        self.n = 0

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None:
                cls._instance = Cluster()
            return cls._instance

    def psql(self, sql, db="regtrack"):
        out = subprocess.run([PG_LOCAL, "psql", "-X", "-tAq", "-d", db, "-c", sql],
                             env=self.env, check=True, capture_output=True, text=True,
                             timeout=60)
        return out.stdout.strip()

    def new_db(self):
        with Cluster._lock:
            self.n += 1
            name = "t%d_%d" % (os.getpid(), self.n)
        self.psql("CREATE DATABASE %s" % name, db="postgres")
        return name, self.base_conninfo.replace("dbname=regtrack", "dbname=" + name)

    def stop(self):
        subprocess.run([PG_LOCAL, "stop"], env=self.env, timeout=120)
        if not os.environ.get("REGTRACK_TEST_TMP"):
            shutil.rmtree(self.tmp, ignore_errors=True)

    def pids(self):
        """The postmaster, then its children (backends, walwriter, checkpointer...)."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            pm = int(f.readline())
        kids = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open("/proc/%s/stat" % d) as f:
                        if int(f.read().rsplit(")", 1)[1].split()[1]) == pm:
                            kids.append(int(d))
                except (OSError, IndexError, ValueError):
                    pass
        return [pm] + kids


def record_reply(method, path, resp):
    """Appends the reply to $REGTRACK_OPENAPI_LOG (JSON lines), when set:
    test_openapi validates every recorded reply against docs/openapi.json."""
    log = os.environ.get("REGTRACK_OPENAPI_LOG")
    if not log or len(resp.body) > (1 << 20):
        return
    with open(log, "a") as f:
        f.write(json.dumps({"method": method, "path": path.split("?", 1)[0],
                            "status": resp.status, "type": resp.headers.get("Content-Type", ""),
                            "body": resp.body}) + "\n")


class Response:
    def __init__(self, status, body, headers):
        self.status = status
        self.body = body
        self.headers = headers

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<%d %s>" % (self.status, self.body[:300])


class Server:
    """The real regtrack-server on a fresh database of the shared cluster."""

    def __init__(self, extra_args=(), env=None):
        self.cluster = Cluster.get()
        self.dbname, self.conninfo = self.cluster.new_db()
        self.extra_args = list(extra_args)
        if "--config" not in self.extra_args:
            # auto_bisect is on by default: these tests' regressions stay as they
            # are unless a test asks for bisects itself
            conf = os.path.join(self.cluster.tmp, "server-%s.conf" % self.dbname)
            with open(conf, "w") as f:
                f.write("auto_bisect = 0\n")
            self.extra_args = ["--config", conf] + self.extra_args
        self.env = dict(os.environ, **(env or {}))
        self.proc = None
        self.start()
        self.tokens = {s: self.token(s) for s in ("read", "submit", "worker", "admin")}

    def start(self, port=0):
        args = [os.path.join(BIN, "regtrack-server"), "serve", "--db", self.conninfo,
                "--listen", "127.0.0.1:%d" % port] + self.extra_args
        self.log = open(os.path.join(self.cluster.tmp, "server-%s.log" % self.dbname), "ab")
        self.log_start = self.log.tell()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, env=self.env)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError("server did not start: %r (log %s)" % (line, self.log.name))
        self.addr = line.split()[-1]
        self.url = "http://" + self.addr

    def stop(self, sig=signal.SIGTERM, timeout=30):
        rc = stop_process(self.proc, sig, timeout) if self.proc else 0
        if self.proc:
            self.proc.stdout.close()
            self.log.close()
            self.proc = None
            self.check_log()
        return rc

    def check_log(self):
        """Fails when this run of the server logged a sanitizer report (a
        leak found at exit, a UBSan runtime error): tests that ignore the
        exit status of stop() must not hide one."""
        with open(self.log.name, "rb") as f:
            f.seek(self.log_start)
            text = f.read().decode("utf-8", "replace")
        for mark in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
            i = text.find(mark)
            if i >= 0:
                raise AssertionError("sanitizer report in %s:\n%s"
                                     % (self.log.name, text[max(0, i - 200):i + 3000]))

    def restart(self):
        port = int(self.addr.rsplit(":", 1)[1])
        self.stop()
        self.start(port)

    def cli(self, *args, check=True):
        out = subprocess.run([os.path.join(BIN, "regtrack-server")] + list(args) +
                             [], env=dict(self.env, REGTRACK_DB=self.conninfo),
                             capture_output=True, text=True, timeout=60)
        if check and out.returncode:
            raise RuntimeError("regtrack-server %s: %s" % (args, out.stderr))
        return out

    def token(self, scope, name=None):
        name = name or "%s-%s" % (scope, uuid.uuid4().hex[:8])
        return self.cli("token", "create", "--scope", scope, "--name", name).stdout.strip()

    def psql(self, sql):
        return self.cluster.psql(sql, db=self.dbname)

    def request(self, method, path, body=None, token=None, scope=None, raw=None,
                headers=None, timeout=60):
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if scope:
            token = self.tokens[scope]
        if token:
            req.add_header("Authorization", "Bearer " + token)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                resp = Response(r.status, r.read().decode(), dict(r.headers))
        except urllib.error.HTTPError as e:
            resp = Response(e.code, e.read().decode(), dict(e.headers))
        record_reply(method, path, resp)
        return resp

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)


def result_doc(commit, testcase="vm-scalability", metrics=None, **extra):
    doc = {
        "run_id": str(uuid.uuid4()),
        "commit": commit,
        "tree": "linux",
        "branch": "master",
        "kconfig": "x86_64-defconfig",
        "compiler": "gcc-12",
        "machine": {"hostname": "lkp-test-1", "arch": "x86_64", "cpu_model": "test cpu",
                    "nr_cpus": 2, "memory_mb": 4096, "tbox_group": "vm-2p"},
        "testcase": testcase,
        "params": {"test": "small-allocs", "nr_task": "100%"},
        "status": "ok",
        "started_at": "2026-11-29T10:00:00Z",
        "duration_s": 12.5,
        "metrics": metrics if metrics is not None else {"vm-scalability.throughput": [1.0]},
    }
    doc.update(extra)
    return doc


def sha(c):
    """A 40-hex commit id made of one repeated hex digit or a prefix."""
    return (c * 40)[:40]



def raw_exchange(srv, data, wait=5.0, send_after=None):
    """Sends data (then send_after) on a new connection to srv; returns
    (seconds to the first reply byte or None, everything read until the
    server closed or wait passed). For requests http.client would not send."""
    host, port = srv.addr.rsplit(":", 1)
    c = socket.create_connection((host, int(port)))
    c.settimeout(wait)
    t0 = time.monotonic()
    first = None
    out = b""
    try:
        c.sendall(data)
        if send_after:
            c.sendall(send_after)
        while True:
            b = c.recv(65536)
            if not b:
                break
            if first is None:
                first = time.monotonic() - t0
            out += b
    except (socket.timeout, ConnectionResetError, BrokenPipeError):
        pass
    finally:
        c.close()
    return first, out

def wait_until(fn, timeout=30, what="condition"):
    """fn() every 0.1 s until it returns something true (returned), or an
    AssertionError after timeout seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = fn()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


def resolved(srv, r, timeout=30):
    """POST /api/v1/requests's reply r (202: stored, its refs resolving in the
    background) followed until the request leaves state "resolving": its
    GET /api/v1/requests/{id} (queued with its jobs, or failed with a
    fail_reason)."""
    assert r.status == 202, r
    assert r.json()["state"] == "resolving", r
    path = r.json()["url"]

    def done():
        q = srv.get(path, scope="read").json()
        return q if q["state"] != "resolving" else None
    return wait_until(done, timeout, what="request %s resolved" % path)
