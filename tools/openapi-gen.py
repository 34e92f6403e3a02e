#!/usr/bin/env python3
# Writes docs/openapi.json (served at /api/v1/openapi.json): tools/openapi-gen.py > docs/openapi.json.
# One add() per route of server/api/routes.c; tests/integration/test_openapi.py checks both.
import json
E = {"$ref": "#/components/schemas/Error"}
OBJ = {"type": "object"}
ARR = {"type": "array"}
ANY = {}
def op(summary, scopes, ok_status="200", ok=OBJ, params=(), body=None, extra=None, text=None):
    o = {"summary": summary, "x-scopes": scopes, "responses": {}}
    if text:
        o["responses"][ok_status] = {"description": "ok", "content": {text: {"schema": {"type": "string"}}}}
    else:
        o["responses"][ok_status] = {"description": "ok", "content": {"application/json": {"schema": ok}}}
    for s, d in (extra or {}).items():
        o["responses"][s] = d
    o["responses"]["default"] = {"description": "an error", "content": {"application/json": {"schema": E}}}
    if params:
        o["parameters"] = [{"name": n, "in": "query", "required": False, "schema": {"type": "string"}} for n in params]
    if body:
        o["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    if scopes and scopes != ["none"]:
        o["security"] = [{"bearer": []}]
    return o
def pid(name):
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
ID = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "state": {"type": "string"}}}
READ = ["read", "submit", "worker", "admin"]
P = {}
def add(path, method, o, path_params=()):
    P.setdefault(path, {})[method] = o
    if path_params:
        P[path]["parameters"] = [pid(n) for n in path_params]
REPLICA = {"description": "the read replica (db_replica): off when none, else what its last check found", "oneOf": [{"type": "string", "enum": ["off"]}, {"type": "object", "required": ["state", "lag_s", "max_lag_s"], "properties": {"state": {"type": "string", "enum": ["unknown", "ok", "lagging", "down", "not_standby"]}, "lag_s": {"type": ["number", "null"]}, "max_lag_s": {"type": "integer"}}}]}
add("/healthz", "get", op("liveness and the database", ["none"], ok={"type": "object", "required": ["status", "database"], "properties": {"status": {"type": "string"}, "database": {"type": "string"}, "replica": REPLICA}}))
add("/metrics", "get", op("Prometheus metrics", ["none"], text="text/plain"))
add("/api/v1/openapi.json", "get", op("this document", ["none"]))
add("/api/v1/results", "post", op("store a result document", ["submit", "worker", "admin"], "201",
    ok={"type": "object", "required": ["run_id", "created"], "properties": {"run_id": {"type": "string"}, "created": {"type": "boolean"}, "metrics": {"type": "integer"}, "values": {"type": "integer"}}},
    body={"$ref": "#/components/schemas/ResultDocument"},
    extra={"200": {"description": "the run was stored before (same run_id)", "content": {"application/json": {"schema": OBJ}}}}))
add("/api/v1/runs", "get", op("the newest runs", READ, ok=ANY, params=["limit"]))
add("/api/v1/runs/{run_id}", "get", op("one run with its values", READ, ok={"$ref": "#/components/schemas/Run"}), ["run_id"])
add("/api/v1/series", "get", op("a metric's series over commits", READ, ok=OBJ, params=["testcase", "metric", "params", "kconfig", "compiler", "tbox_group", "mode", "monitors", "tree", "branch"]))
NUM_OR_NULL = {"type": ["number", "null"]}
COMPARE_ROW = {"type": "object", "required": ["setup_id", "metric", "n", "verdict", "by_spread", "aa_spread_pct", "aa_runs"],
               "properties": {"setup_id": {"type": "integer"}, "metric": {"type": "string"}, "n": ARR,
                              "hl_pct": NUM_OR_NULL, "p_value": NUM_OR_NULL, "q_value": NUM_OR_NULL,
                              "verdict": {"type": "string", "enum": ["need-more-runs", "same", "different"]},
                              "by_spread": {"type": "boolean", "description": "decided by compare_deterministic() with the setup's measured A/A spread (icount setups; README: Deterministic measurement)"},
                              "aa_spread_pct": dict(NUM_OR_NULL, description="the setup's A/A spread of the metric (largest relative range of one kernel's runs, floored at 0.01 %); null when not measured"),
                              "aa_runs": {"type": "integer", "description": "the runs the spread was measured on (6 or more to decide by it)"}}}
COMPARE = {"type": "object", "required": ["base", "head", "rows"],
           "properties": {"host_fingerprints": OBJ, "setups": ARR, "rows": {"type": "array", "items": COMPARE_ROW}}}
add("/api/v1/compare", "get", op("two commits compared", READ, ok=COMPARE, params=["base", "head", "testcase", "metric", "changed", "format", "monitors"]))
P["/api/v1/compare"]["get"]["responses"]["200"]["content"]["text/plain"] = {"schema": {"type": "string"}, "x-when": "format=text"}
add("/api/v1/machines", "get", op("machines", READ, ok=ANY))
add("/api/v1/metrics", "get", op("metric names", READ, ok=ANY))
add("/api/v1/metrics/{name}", "put", op("set a metric's direction and unit", ["admin"], ok=OBJ, body=OBJ), ["name"])
add("/api/v1/testcases", "get", op("testcases", READ, ok=ANY))
add("/api/v1/trees", "get", op("trees: polls, branch heads, the plans on each with their jobs by state", READ,
    ok={"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}))
add("/api/v1/trees", "post", op("add or update a tree", ["admin"], ok=OBJ, body={"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 128}, "url": {"type": "string"}, "branches": {"type": "array", "items": {"type": "string"}}}}))
add("/api/v1/trees/{name}/poll", "post", op("fetch a tree's branches now", ["submit", "admin"], "2XX", ok=ANY), ["name"])
add("/api/v1/plans", "get", op("tracking plans", READ, ok=ANY))
add("/api/v1/plans", "post", op("add a tracking plan", ["admin"], "2XX", ok=ANY, body=OBJ))
add("/api/v1/plans/{id}", "get", op("one plan", READ, ok=ANY), ["id"])
add("/api/v1/plans/{id}", "put", op("change a plan", ["admin"], "2XX", ok=ANY, body=OBJ), ["id"])
add("/api/v1/plans/{id}", "delete", op("remove a plan", ["admin"], "2XX", ok=ANY), ["id"])
add("/api/v1/plans/{id}/pushes", "get", op("the pushes a plan saw", READ, ok=ANY), ["id"])
add("/api/v1/requests", "get", op("A/B test requests", READ, ok=ANY, params=["state", "limit"]))
add("/api/v1/requests", "post", op("ask for an A/B test of a change (base vs head or patches)", ["submit", "admin"], "201", ok=ID, body=OBJ))
add("/api/v1/requests/{id}", "get", op("one A/B request: progress, rows, verdict, reproduce", READ, ok=OBJ), ["id"])
add("/api/v1/requests/{id}/cancel", "post", op("cancel an A/B request and its queued jobs", ["submit", "admin"], ok=OBJ), ["id"])
add("/api/v1/requests/{id}/mbox", "get", op("an A/B request's patches, the mbox as submitted (404 detail patches: it tests a head commit)", READ, text="application/mbox"), ["id"])
add("/api/v1/jobs", "get", op("jobs", READ, ok=ANY, params=["state", "limit"]))
add("/api/v1/jobs", "post", op("submit a job", ["submit", "admin"], "201", ok=ID, body={"type": "object", "required": ["commit", "kconfig", "testcase"], "properties": {"params": {"$ref": "#/components/schemas/Params"}}}))
add("/api/v1/jobs/lease", "post", op("lease the next job for a machine (long poll)", ["worker", "admin"],
    ok={"type": "object", "required": ["job", "lease_timeout_s"]},
    body={"type": "object", "required": ["machine_id"], "properties": {"machine_id": {"type": "integer"}, "wait_s": {"type": "integer", "maximum": 60}, "request_id": {"type": "string"}}},
    extra={"204": {"description": "no job within wait_s"}}))
add("/api/v1/jobs/{id}", "get", op("one job", READ, ok=OBJ), ["id"])
add("/api/v1/jobs/{id}/complete", "post", op("complete a leased job with its results (the token must own the machine)", ["worker", "admin"], ok=ID, body=OBJ), ["id"])
add("/api/v1/jobs/{id}/heartbeat", "post", op("extend a lease (the token must own the machine)", ["worker", "admin"], ok={"type": "object", "required": ["lease_expires_at"]}, body=OBJ), ["id"])
add("/api/v1/jobs/{id}/cancel", "post", op("cancel a queued or leased job", ["submit", "admin"], ok=OBJ), ["id"])
add("/api/v1/jobs/{id}/kconfig", "get", op("the job's .config", READ, text="text/plain"), ["id"])
add("/api/v1/workers/register", "post", op("register a machine (owned by the registering token)", ["worker", "admin"], ok={"type": "object", "required": ["machine_id", "lease_timeout_s"]}, body={"type": "object", "required": ["hostname", "arch"]}))
add("/api/v1/regressions", "get", op("regressions", READ, ok=ANY, params=["state", "limit"]))
NUMN = {"type": ["number", "null"]}
COMMITREF = {"type": "object", "required": ["sha"], "properties": {"sha": {"type": "string"}, "subject": {"type": ["string", "null"]}}}
ALSO_SEEN = {"type": "object", "required": ["arch", "regression_id", "hl_pct", "change_pct", "ci_pct", "first_bad", "match", "url"],
             "properties": {"arch": {"type": "string"}, "regression_id": {"type": "integer"}, "kind": {"type": "string"}, "state": {"type": "string"},
                            "hl_pct": NUMN, "change_pct": NUMN, "ci_pct": {"type": "array", "items": NUMN}, "p_value": NUMN,
                            "bisect_id": {"type": ["integer", "null"]},
                            "first_bad": {"type": "object", "required": ["sha", "source"], "properties": {"sha": {"type": "string"}, "source": {"enum": ["bisect", "range"]}}},
                            "match": {"enum": ["first_bad", "range"]}, "url": {"type": "string"}}}
REG_BISECT = {"type": ["object", "null"], "required": ["id", "state", "first_bad_commit", "confidence", "profile_diff"],
              "properties": {"id": {"type": "integer"}, "state": {"type": "string"}, "confidence": NUMN,
                             "first_bad_commit": {"type": ["object", "null"], "required": ["sha", "subject", "author", "diffstat"]},
                             "parent": {"anyOf": [COMMITREF, {"type": "null"}]},
                             "parent_stand_in": {"anyOf": [COMMITREF, {"type": "null"}]}, "profile_diff": {"type": "string"}}}
REGRESSION = {"type": "object", "required": ["id", "arch", "bisect", "also_seen", "group", "history"],
              "properties": {"arch": {"type": ["string", "null"]}, "bisect": REG_BISECT, "also_seen": {"type": "array", "items": ALSO_SEEN}}}
add("/api/v1/regressions/{id}", "get", op("one regression: the record, its group and history, its arch, its bisect's first bad commit, the same change on other arches (also_seen)", READ, ok=REGRESSION), ["id"])
add("/api/v1/regressions/{id}", "patch", op("change a regression's state", ["admin"], ok=OBJ, body=OBJ), ["id"])
add("/api/v1/outbox", "get", op("the mail outbox", ["admin"], ok=ANY))
add("/api/v1/regressions/{id}/report", "get", op("a regression's report mail", READ, ok=ANY), ["id"])
add("/api/v1/regressions/{id}/report", "post", op("queue a regression's report mail", ["admin"], ok=OBJ, body=OBJ, extra={"201": {"description": "queued", "content": {"application/json": {"schema": OBJ}}}, "202": {"description": "queued", "content": {"application/json": {"schema": OBJ}}}}), ["id"])
add("/api/v1/regressions/{id}/bisect", "post", op("bisect a regression now (its own range, setup and metric)", ["admin"], "201", ok=ID), ["id"])
add("/api/v1/bisects", "get", op("bisects", READ, ok=ANY))
add("/api/v1/bisects", "post", op("start a bisect", ["submit", "admin"], "201", ok=ID, body={"type": "object", "properties": {"params": {"$ref": "#/components/schemas/Params"}}}))
add("/api/v1/bisects/{id}", "get", op("one bisect", READ, ok=OBJ), ["id"])
add("/api/v1/bisects/{id}/cancel", "post", op("cancel a bisect", ["submit", "admin"], ok=ID), ["id"])
add("/api/v1/subscriptions", "get", op("mail subscriptions", ["admin"], ok=ANY))
add("/api/v1/subscriptions", "post", op("add a subscription", ["admin"], "201", ok=OBJ, body=OBJ))
add("/api/v1/subscriptions/{id}", "delete", op("remove a subscription", ["admin"], "204", ok=ANY), ["id"])
P["/api/v1/subscriptions/{id}"]["delete"]["responses"]["204"] = {"description": "removed"}
add("/api/v1/bisects/{id}/kconfig-diff", "get", op(".config differences of a bisect's ends", READ, ok=ANY), ["id"])
add("/api/v1/kconfig/diff", "get", op(".config differences of two jobs", READ, ok=ANY, params=["a", "b"]))
add("/api/v1/regressions/{id}/kconfig-diff", "get", op(".config differences of a regression's ends", READ, ok=ANY), ["id"])
# profiles (issue 22): a run's folded stacks and profile diffs (server/api/profiles.c)
add("/api/v1/runs/{run_id}/profile", "get", op("a run's folded stacks (404 when it ran without perf-profile)", READ, text="text/plain"), ["run_id"])
DIFF_ARGS = ["limit", "alpha", "folded", "work"]
SETUP_FILTERS = ["testcase", "params", "kconfig", "compiler", "tbox_group", "mode", "monitors"]
add("/api/v1/profile-diff", "get", op("the profile diff of two commits' profiled runs, of one setup (400 missing_field setup when they span several: the choices in the message)", READ, ok={"$ref": "#/components/schemas/ProfileDiff"}, params=["base", "head"] + SETUP_FILTERS + ["setup"] + DIFF_ARGS))
add("/api/v1/bisects/{id}/profile-diff", "get", op("a bisect's first bad commit vs its parent (its profile round)", READ, ok={"$ref": "#/components/schemas/ProfileDiff"}, params=DIFF_ARGS), ["id"])
add("/api/v1/requests/{id}/profile-diff", "get", op("an A/B request's head vs base, profiled runs", READ, ok={"$ref": "#/components/schemas/ProfileDiff"}, params=["target", "testcase"] + DIFF_ARGS), ["id"])
doc = {
  "openapi": "3.0.3",
  "info": {"title": "regtrack", "version": "1",
           "description": "Linux kernel performance regression tracker (README: limits, scopes). Every error is {\"error\": {code, message, detail}}. x-scopes: the token scopes a call accepts (read routes are open without a token when public_read = 1)."},
  "paths": P,
  "components": {
    "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "rt_<id>_<secret>"}},
    "schemas": {
      "Error": {"type": "object", "required": ["error"], "additionalProperties": False,
                "properties": {"error": {"type": "object", "required": ["code", "message", "detail"], "additionalProperties": False,
                   "properties": {"code": {"type": "string"}, "message": {"type": "string"}, "detail": {"type": "string"}}}}},
      "Monitors": {"type": "array", "items": {"type": "string", "enum": ["perf-profile", "perf-stat"]}},
      "Params": {"type": "object", "maxProperties": 100,
                 "additionalProperties": {"oneOf": [{"type": "string", "maxLength": 4096}, {"type": "number"}, {"type": "boolean"}]}},
      "ResultDocument": {"type": "object", "required": ["run_id", "commit", "testcase", "metrics"],
                 "properties": {"run_id": {"type": "string"}, "commit": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
                                "testcase": {"type": "string", "maxLength": 128}, "params": {"$ref": "#/components/schemas/Params"},
                                "metrics": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "number"}, "minItems": 1}},
                                "machine": {"type": "object", "properties": {"hostname": {"type": "string", "maxLength": 255}, "arch": {"type": "string", "maxLength": 64}}},
                                "monitors": {"$ref": "#/components/schemas/Monitors"},
                                "profile": {"type": "object", "required": ["event", "samples", "folded"], "properties": {"event": {"type": "string", "maxLength": 64}, "samples": {"type": "integer", "minimum": 0}, "folded": {"type": "string", "maxLength": 4194304}}}},
                 "description": "other top-level fields are kept (runs.extra): at most 100,000 JSON values and 2 MiB in all"},
      "ProfileDiff": {"type": "object", "required": ["event", "base", "head", "work", "symbols", "significance"],
                 "properties": {"event": {"nullable": True, "description": "what perf sampled (cpu-clock), the runs' events joined by ',' when they differ; null without runs. The perf-profile.*.cycles-pp.* metrics keep LKP's name"},
                                "base": {"$ref": "#/components/schemas/ProfileSide"}, "head": {"$ref": "#/components/schemas/ProfileSide"},
                                "work": {"type": "object", "required": ["metric", "per_work"], "properties": {"metric": {"nullable": True, "description": "the metric that counted the runs' work (work=, else the first of PROFILE_WORK_METRICS a run has); null when none"}, "per_work": {"type": "boolean", "description": "every run of both sides had its work: significance per work"}}},
                                "symbols": {"type": "array", "items": {"type": "object", "required": ["symbol", "base_children_pct", "head_children_pct", "children_change", "base_self_pct", "head_self_pct", "self_change", "base_children_per_work", "head_children_per_work", "per_work_change_pct", "p_share", "p_per_work", "p", "significant", "verdict"],
                                   "properties": {"symbol": {"type": "string"}, "base_children_pct": {"type": "number"}, "head_children_pct": {"type": "number"}, "children_change": {"type": "number"},
                                                  "base_self_pct": {"type": "number"}, "head_self_pct": {"type": "number"}, "self_change": {"type": "number"},
                                                  "base_children_per_work": {"nullable": True, "description": "children samples per unit of work; null without per_work"},
                                                  "head_children_per_work": {"nullable": True, "description": "number; null without per_work"},
                                                  "per_work_change_pct": {"nullable": True, "description": "100 * (head / base - 1); null without per_work or when base is 0"},
                                                  "p_share": {"nullable": True, "description": "the runs' children % tested; null when not tested"},
                                                  "p_per_work": {"nullable": True, "description": "the runs' children samples per work tested; null when not tested"},
                                                  "p": {"nullable": True, "description": "number, p_per_work with per_work else p_share; null when not tested (need-more-runs)"}, "significant": {"type": "boolean"},
                                                  "verdict": {"type": "string", "enum": ["different", "same", "need-more-runs"]}}}},
                                "nr_symbols": {"type": "integer"},
                                "setup": {"type": ["object", "null"], "description": "/profile-diff: the setup diffed (null without runs)"},
                                "significance": {"type": "object", "required": ["test", "alpha", "status"], "properties": {"test": {"type": "string"}, "alpha": {"type": "number"}, "min_p": {"nullable": True, "description": "number; null without runs"}, "status": {"type": "string", "enum": ["ok", "need-more-runs"]}, "basis": {"type": "string", "enum": ["per-work", "share"]}}},
                                "folded": {"type": "object", "required": ["base", "head"], "properties": {"base": {"type": "string"}, "head": {"type": "string"}}}}},
      "ProfileSide": {"type": "object", "required": ["commit", "runs", "samples", "work"], "properties": {"commit": {"nullable": True, "description": "sha; null when not known"}, "runs": {"type": "integer"}, "samples": {"type": "integer"}, "work": {"nullable": True, "description": "the runs' work summed (mean work metric x runtime s); null when a run had none"}}},
      "Tree": {"type": "object", "required": ["name", "url", "poll_s", "polls", "heads", "plans"],
               "properties": {"name": {"type": "string"}, "url": {"type": ["string", "null"]}, "commits": {"type": "integer"},
                              "poll_s": {"type": "integer"}, "polls": {"type": "integer"},
                              "last_poll_at": {"type": ["string", "null"]}, "last_poll_ms": {"type": ["integer", "null"]},
                              "poll_error": {"type": ["string", "null"]}, "poll_failures": {"type": "integer"},
                              "next_poll_at": {"type": ["string", "null"]},
                              "heads": {"type": "array", "items": {"type": "object", "required": ["branch", "head"],
                                        "properties": {"branch": {"type": "string"}, "head": {"type": "string"},
                                                       "previous": {"type": ["string", "null"]}, "forced": {"type": "boolean"}}}},
                              "plans": {"type": "array", "items": {"type": "object", "required": ["name", "enabled", "jobs"],
                                        "properties": {"name": {"type": "string"}, "enabled": {"type": "boolean"},
                                                       "jobs": {"type": "object", "required": ["queued", "running", "done", "failed", "superseded", "cancelled", "tip"],
                                                                "additionalProperties": {"type": "integer"},
                                                                "description": "the plan's jobs by state; tip: the extra jobs of tips that moved"},
                                                       "last_push": {"type": ["object", "null"]}}}}},
               "description": "GET /api/v1/trees is cached for up to a second"},
      "Run": {"type": "object", "required": ["run_id", "commit", "testcase", "params", "metrics", "extra", "machine"],
              "properties": {"run_id": {"type": "string"}, "commit": {"type": "string"}, "testcase": {"type": "string"},
                             "params": {"type": "object"}, "metrics": {"type": "object"}, "extra": {"type": "object"},
                             "machine": {"type": "object"}}},
    }
  }
}
print(json.dumps(doc, indent=1, sort_keys=False))
