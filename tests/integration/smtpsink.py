"""A real SMTP server for the mail tests (aiosmtpd, Debian's python3-aiosmtpd).

SmtpSink(port=0) runs an aiosmtpd Controller in this process and keeps every
message it accepts in memory (and, with `directory`, as DIR/NNNN.eml):
`messages` is a list of {"mail_from", "rcpt_tos", "raw" (bytes), "msg"
(email.message.EmailMessage)}. stop() closes the listening socket (clients
then get "connection refused"); start() listens again on the same port, so a
test can take the mail server away and bring it back. wait_for(n) blocks
until at least n messages arrived (or raises after `timeout` seconds).

Run as a program it is a stand-alone sink: smtpsink.py PORT DIR.

With REGTRACK_MAIL_RECORD=DIR in the environment every sink of the process
also writes each message it accepts as DIR/NNNN.eml (one count across sinks),
to compare the mails of two builds (mailcmp.py).
"""
import email
import email.policy
import os
import socket
import sys
import threading
import time

from aiosmtpd.controller import Controller

_recorded = [0]  # REGTRACK_MAIL_RECORD's count, across the process's sinks


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class _Handler:
    def __init__(self, sink):
        self.sink = sink

    async def handle_DATA(self, server, session, envelope):
        self.sink._store(envelope)
        return "250 OK"


class SmtpSink:
    def __init__(self, port=0, directory=None):
        self.port = port or free_port()
        self.dir = directory
        self.messages = []
        self.lock = threading.Condition()
        self.controller = None
        if directory:
            os.makedirs(directory, exist_ok=True)

    def _store(self, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode()
        m = {"mail_from": envelope.mail_from, "rcpt_tos": list(envelope.rcpt_tos), "raw": raw,
             "msg": email.message_from_bytes(raw, policy=email.policy.default)}
        with self.lock:
            self.messages.append(m)
            if self.dir:
                path = os.path.join(self.dir, "%04d.eml" % len(self.messages))
                with open(path + ".tmp", "wb") as f:
                    f.write(raw)
                os.rename(path + ".tmp", path)
            self._record(raw)
            self.lock.notify_all()

    @staticmethod
    def _record(raw):
        d = os.environ.get("REGTRACK_MAIL_RECORD")
        if not d:
            return
        os.makedirs(d, exist_ok=True)
        _recorded[0] += 1
        with open(os.path.join(d, "%04d.eml" % _recorded[0]), "wb") as f:
            f.write(raw)

    @property
    def url(self):
        return "smtp://127.0.0.1:%d" % self.port

    def start(self):
        self.controller = Controller(_Handler(self), hostname="127.0.0.1", port=self.port,
                                     decode_data=False)
        self.controller.start()

    def stop(self):
        if self.controller:
            self.controller.stop()
            self.controller = None

    def wait_for(self, n, timeout=30):
        deadline = time.monotonic() + timeout
        with self.lock:
            while len(self.messages) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError("expected %d mails, got %d" % (n, len(self.messages)))
                self.lock.wait(left)
            return list(self.messages)


if __name__ == "__main__":
    sink = SmtpSink(int(sys.argv[1]), sys.argv[2])
    sink.start()
    print("smtpsink listening on 127.0.0.1:%d" % sink.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        sink.stop()
