"""GET /api/v1/series reads its points in PostgreSQL's binary format
(server/api/series.c): the ids as 8 bytes, the run ids as 16, the mean as
PostgreSQL's own text (mean::text: libdouble-conversion's shortest digits
differ from float8out's on the edges of rounding intervals, 1e23). The
reply must still carry each mean exactly as PostgreSQL's text output prints
it (float8out, shortest exact digits, its own switch to exponents: "1e-05",
"1.5e+15") with ".0" after integral values and null for NaN, infinities and
NULL, and each run id as uuid_out prints it — what the server wrote when it
read the points as text. Compared byte for byte with mean::text and
run_id::text from psql for a few thousand doubles: random bit patterns over
the whole range, the layout's switch points, integers, zeros, subnormals and
the extremes. The commits' times likewise: read as microseconds, printed as
to_char printed them."""
import os
import random
import re
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402


def setUpModule():
    global srv
    srv = Server()
    srv.psql("""
INSERT INTO testcases (name) VALUES ('vals');
INSERT INTO metrics (name, unit, higher_is_better) VALUES ('vals.m', 'ops', true), ('vals.t', 'ops', true);
INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group)
  SELECT id, '{}', '{}', 'x86_64-defconfig', 'gcc-12', 'vals-2p' FROM testcases WHERE name = 'vals';
""")


def tearDownModule():
    srv.stop()


def doubles():
    """repr() of each value: Python's shortest text, which PostgreSQL reads exactly."""
    rnd = random.Random(11)
    vals = [0.0, -0.0, 1.0, -1.0, 100.0, 1e14, 1e15, -1e15, 1e16, 1e17, 123456789012345.0,
            1234567890123456.0, 999999999999999.9, 0.0001, 0.00012345, 0.00001, 9.999e-05,
            1e-05, -1.25e-05, 1.5e-07, 1e100, 1e-100, 1e308, 1.7976931348623157e308,
            2.2250738585072014e-308, 5e-324, -5e-324, 0.1, 0.2, 0.3, 1 / 3, 2 / 3,
            12345.678, 4.35, 2.675, 1e21, 1e22, 1e23, 9007199254740993.0, 2.0 ** 53,
            -2.0 ** 63, 1e-4 * (1 - 2 ** -52), 1e15 * (1 - 2 ** -52)]
    # every power of ten and its neighbours near the switch points
    for e in range(-8, 20):
        v = 10.0 ** e
        vals += [v, -v, v * 1.5, v * (1 + 2 ** -52), v * (1 - 2 ** -53)]
    # random bit patterns (NaN and infinities left out: they cannot be stored from text here)
    while len(vals) < 3000:
        (v,) = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))
        if v == v and v not in (float("inf"), float("-inf")):
            vals.append(v)
    # values of everyday magnitude with few digits, as benchmarks report them
    vals += [round(rnd.uniform(-1e6, 1e6), rnd.randint(0, 6)) for _ in range(1000)]
    return [repr(v) for v in vals]


def json_of_pg(text):
    """jsonout_pg_float() of PostgreSQL's text of a float8."""
    if text == "" or re.search(r"[^-0-9.e+]", text):
        return "null"
    if re.fullmatch(r"-?[0-9]+", text):
        return text + ".0"
    return text


class SeriesValues(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vals = doubles()
        rows = ",".join("(%d, '%s')" % (i, v) for i, v in enumerate(cls.vals))
        srv.psql("""
INSERT INTO commits (sha, subject, commit_time)
  VALUES (repeat('ab', 20), 'values', '2026-02-03T04:05:06Z');
CREATE TEMP TABLE x (i int, v float8);
INSERT INTO x VALUES %s;
INSERT INTO runs (run_id, commit_id, setup_id, doc_sha256)
  SELECT md5('vals' || x.i)::uuid, c.id, s.id, '\\x00'
  FROM x, commits c, setups s WHERE c.sha = repeat('ab', 20) AND s.tbox_group = 'vals-2p'
  ORDER BY x.i;
INSERT INTO run_values (run_id, metric_id, vals)
  SELECT r.id, m.id, ARRAY[x.v] FROM x JOIN runs r ON r.run_id = md5('vals' || x.i)::uuid
  CROSS JOIN metrics m WHERE m.name = 'vals.m';
""" % rows)
        # NaN, infinities and a run without iterations (mean NULL) at the end
        for i, v in enumerate(["{NaN}", "{Infinity}", "{-Infinity}", "{}"]):
            srv.psql("""
INSERT INTO runs (run_id, commit_id, setup_id, doc_sha256)
  SELECT md5('special%d')::uuid, c.id, s.id, '\\x00' FROM commits c, setups s
  WHERE c.sha = repeat('ab', 20) AND s.tbox_group = 'vals-2p';
INSERT INTO run_values (run_id, metric_id, vals)
  SELECT r.id, m.id, '%s' FROM runs r, metrics m
  WHERE r.run_id = md5('special%d')::uuid AND m.name = 'vals.m';
""" % (i, v, i))

    def test_values_and_run_ids_as_postgresql_prints_them(self):
        want = [x.split("|") for x in srv.psql(
            "SELECT r.run_id::text, coalesce(v.mean::text, '') FROM run_values v "
            "JOIN runs r ON r.id = v.run_id JOIN metrics m ON m.id = v.metric_id "
            "WHERE m.name = 'vals.m' ORDER BY r.id").splitlines()]
        self.assertEqual(len(want), len(self.vals) + 4)
        self.assertEqual([w[1] for w in want[-4:]], ["NaN", "Infinity", "-Infinity", ""])
        r = srv.get("/api/v1/series?testcase=vals&metric=vals.m")
        self.assertEqual(r.status, 200, r)
        body = r.body
        # the columns as the server wrote them, not as a JSON reader rounds them
        values = re.search(r'"value":\[([^\]]*)\]', body).group(1).split(",")
        run_ids = re.search(r'"run_id":\[([^\]]*)\]', body).group(1).split(",")
        self.assertEqual(run_ids, ['"%s"' % w[0] for w in want])
        self.assertEqual(values, [json_of_pg(w[1]) for w in want])
        self.assertEqual(values[-4:], ["null"] * 4)
        # a few spelled out: PostgreSQL's exponents, ".0" on integral values
        got = dict(zip(self.vals, values))
        self.assertEqual(got["1e-05"], "1e-05")
        self.assertEqual(got["1000000000000000.0"], "1e+15")
        self.assertEqual(got["100000000000000.0"], "100000000000000.0")
        self.assertEqual(got["0.0001"], "0.0001")
        # not the shortest text: the shorter "1e+23" lies on the edge of the
        # double's rounding interval, which PostgreSQL's Ryu does not accept
        self.assertEqual(got["1e+23"], "9.999999999999999e+22")
        self.assertEqual(got["5e-324"], "5e-324")
        self.assertEqual(got["1.7976931348623157e+308"], "1.7976931348623157e+308")
        # and it is JSON that reads back as the stored doubles
        doc = r.json()
        (s,) = doc["series"]
        self.assertEqual(s["commits"], [{"sha": "ab" * 20, "subject": "values",
                                         "commit_time": "2026-02-03T04:05:06Z"}])
        self.assertEqual(s["points"]["commit"], [0] * len(want))
        self.assertEqual(s["points"]["value"][:len(self.vals)], [float(v) for v in self.vals])



class SeriesCommitTimes(unittest.TestCase):
    """ST_SERIES_COMMITS reads commit_time in binary (microseconds since
    2000) and api_series.c prints it: the same text as
    to_char(commit_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
    which the server used before, for every time here."""
    TIMES = ["2026-02-03 04:05:06.999999+00", "1999-12-31 23:59:59.5+00",
             "2000-01-01 00:00:00+00", "2000-02-29 00:00:01+00", "1970-01-01 00:00:00+00",
             "1969-12-31 23:59:59.000001+00", "1900-02-28 12:00:00+00", "2100-03-01 00:00:00+00",
             "1583-01-01 00:00:00+00", "0099-06-30 01:02:03+00", "9999-12-31 23:59:59.999999+00",
             "12000-01-01 00:00:00+00", "0044-03-15 12:00:00+00 BC", "2024-06-30 23:59:59+02",
             "infinity", "-infinity", None]

    @classmethod
    def setUpClass(cls):
        for i, t in enumerate(cls.TIMES):
            srv.psql("""
INSERT INTO commits (sha, subject, commit_time) VALUES (md5('time%d') || 'abcdefab', NULL, %s);
INSERT INTO runs (run_id, commit_id, setup_id, doc_sha256)
  SELECT md5('trun%d')::uuid, c.id, s.id, '\\x00' FROM commits c, setups s
  WHERE c.sha = md5('time%d') || 'abcdefab' AND s.tbox_group = 'vals-2p';
INSERT INTO run_values (run_id, metric_id, vals)
  SELECT r.id, m.id, '{%d}' FROM runs r, metrics m
  WHERE r.run_id = md5('trun%d')::uuid AND m.name = 'vals.t';
""" % (i, "NULL" if t is None else "'%s'" % t, i, i, i, i))

    def test_commit_times_as_to_char(self):
        want = dict(x.split("|") for x in srv.psql(
            "SELECT c.sha, coalesce(to_char(c.commit_time AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), 'null') FROM commits c "
            "WHERE c.sha LIKE '%abcdefab'").splitlines())
        self.assertEqual(len(want), len(self.TIMES))
        r = srv.get("/api/v1/series?testcase=vals&metric=vals.t")
        self.assertEqual(r.status, 200, r)
        (s,) = r.json()["series"]
        got = {c["sha"]: c["commit_time"] or "null" for c in s["commits"]}
        self.assertEqual(got, want)
        # a few spelled out
        self.assertIn("2026-02-03T04:05:06Z", got.values())
        self.assertIn("1969-12-31T23:59:59Z", got.values())
        self.assertIn("0099-06-30T01:02:03Z", got.values())
        self.assertIn("12000-01-01T00:00:00Z", got.values())
        self.assertIn("0044-03-15T12:00:00Z", got.values())
        self.assertIn("2024-06-30T21:59:59Z", got.values())
        # subject NULL is null; in series order -infinity and 44 BC come
        # first, the year 12000, infinity and no time at all last
        self.assertEqual([c["subject"] for c in s["commits"]], [None] * len(self.TIMES))
        self.assertEqual(s["points"]["value"][:2], [15.0, 12.0])
        self.assertEqual(s["points"]["value"][-3:], [11.0, 14.0, 16.0])


if __name__ == "__main__":
    unittest.main()
