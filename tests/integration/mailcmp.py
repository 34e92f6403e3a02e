"""Compares the mails two builds sent in the same tests (smtpsink.py's
REGTRACK_MAIL_RECORD folders): mailcmp.py BEFORE_DIR AFTER_DIR.

A mail's Date: and Message-ID: headers are masked (a clock and a random
part); --mask-hex also masks hex runs of 12 or 40 digits (commit shas of
trees a test makes at its own time). The two folders must hold the same
mails, in any order (tests that run in threads send in either order).
Exit 0 when they do, else 1 with each mail of one side that the other
lacks.
"""
import argparse
import os
import re
import sys

MASKED = re.compile(rb"^(Date|Message-ID): .*$", re.I | re.M)
HEX = re.compile(rb"\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b")


def load(d, mask_hex):
    out = {}
    for f in sorted(os.listdir(d)):
        if not f.endswith(".eml"):
            continue
        with open(os.path.join(d, f), "rb") as fh:
            raw = fh.read()
        raw = MASKED.sub(rb"\1: (masked)", raw)
        if mask_hex:
            raw = HEX.sub(b"(hex)", raw)
        out.setdefault(raw, []).append(f)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--mask-hex", action="store_true")
    a = ap.parse_args()
    b, c = load(a.before, a.mask_hex), load(a.after, a.mask_hex)
    nb, nc = sum(map(len, b.values())), sum(map(len, c.values()))
    bad = 0
    for raw, fs in b.items():
        if len(c.get(raw, [])) != len(fs):
            bad = 1
            print("== only before (%s):\n%s" % (", ".join(fs), raw.decode("utf-8", "replace")))
    for raw, fs in c.items():
        if len(b.get(raw, [])) != len(fs):
            bad = 1
            print("== only after (%s):\n%s" % (", ".join(fs), raw.decode("utf-8", "replace")))
    print("%d mails before, %d after: %s" % (nb, nc, "different" if bad else "identical"))
    return bad


if __name__ == "__main__":
    sys.exit(main())
