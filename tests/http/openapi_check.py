#!/usr/bin/env python3
"""docs/openapi.yaml against itself and against the real daemon.

1. lints it with `npx --yes @redocly/cli@1.34.20 lint` (docs/redocly.yaml);
2. bundles it, dereferenced, to JSON with the same tool;
3. starts dungeond and checks that real answers of every endpoint, for every
   status the description lists and the tests can provoke, match the schema
   of that status and content type; and that the description's request
   examples match the request schema.

Usage: openapi_check.py PATH/TO/dungeond PATH/TO/openapi.yaml. Prints TAP.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402

REDOCLY = ["npx", "--yes", "@redocly/cli@1.34.20"]


def validate(value, schema, where="$"):
    """Errors of `value` against a dereferenced JSON Schema (the subset the
    description uses), as a list of strings."""
    errors = []
    if "oneOf" in schema:
        matches = sum(1 for s in schema["oneOf"] if not validate(value, s, where))
        if matches != 1:
            errors.append(f"{where}: matches {matches} of oneOf")
        return errors
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: {value!r} != const {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in {schema['enum']}")
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        checks = {
            "object": lambda v: isinstance(v, dict),
            "array": lambda v: isinstance(v, list),
            "string": lambda v: isinstance(v, str),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "boolean": lambda v: isinstance(v, bool),
            "null": lambda v: v is None,
        }
        if not any(checks[k](value) for k in kinds):
            return errors + [f"{where}: {type(value).__name__} is not {kinds}"]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{where}: {value} > {schema['maximum']}")
    if isinstance(value, str):
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{where}: longer than {schema['maxLength']}")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: missing {key}")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, member in value.items():
            if key in properties:
                errors += validate(member, properties[key], f"{where}.{key}")
            elif extra is False:
                errors.append(f"{where}: unexpected member {key}")
            elif isinstance(extra, dict):
                errors += validate(member, extra, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errors += validate(item, schema["items"], f"{where}[{i}]")
    return errors


def status_of_case(path, body):
    """The invalid-settings case runs on a fresh lobby (oa2), not the started one."""
    return body == {"params": {"width": 1}}


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    spec_path = os.path.abspath(sys.argv[2])
    config = os.path.join(os.path.dirname(spec_path), "redocly.yaml")
    print("1..4", flush=True)
    failed = 0

    lint = subprocess.run(REDOCLY + ["lint", "--config", config, spec_path],
                          capture_output=True, text=True)
    if lint.returncode == 0:
        print("ok 1 - redocly lint", flush=True)
    else:
        failed += 1
        print("not ok 1 - redocly lint", flush=True)
        for line in (lint.stdout + lint.stderr).splitlines()[-40:]:
            print("# " + line)

    out = os.path.join(tempfile.mkdtemp(prefix="openapi-"), "openapi.json")
    bundle = subprocess.run(REDOCLY + ["bundle", "--dereferenced", "--output", out, spec_path],
                            capture_output=True, text=True)
    if bundle.returncode != 0 or not os.path.exists(out):
        print("not ok 2 - redocly bundle to JSON", flush=True)
        for line in (bundle.stdout + bundle.stderr).splitlines()[-20:]:
            print("# " + line)
        print("not ok 3 - answers match the schemas # bundle failed")
        print("not ok 4 - request examples match the schema # bundle failed")
        return 1
    print("ok 2 - redocly bundle to JSON", flush=True)
    with open(out) as f:
        spec = json.load(f)
    shutil.rmtree(os.path.dirname(out), ignore_errors=True)

    def schema_of(path, method, status, content_type):
        response = spec["paths"][path][method]["responses"][str(status)]
        return response["content"][content_type]["schema"]

    slow = dict(harness.SLOW)
    cases = [
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 1}, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "players": [{"level": 3}]}, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 1},
         {"Accept": "text/plain"}, 200),
        ("post", "/v1/levels", "{oops", {}, 400),
        ("post", "/v1/levels", {"algorithm": "classic", "params": {"width": 1}}, {}, 422),
        ("post", "/v1/levels", {"algorithm": "classic", "x": "y" * 5000}, {}, 413),
        ("post", "/v1/levels", {"algorithm": "classic"}, {"Accept": "image/gif"}, 406),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 1},
         {"Accept": "image/svg+xml"}, 200),
        ("post", "/v1/levels", {"algorithm": "landmark", "seed": 1},
         {"Accept": "application/vnd.dungeond.tiled+json"}, 200),
        ("get", "/v1/levels?algorithm=classic&seed=1&width=90", None, {}, 200),
        ("get", "/v1/levels?algorithm=classic&seed=1&width=9", None, {}, 422),
        ("get", "/", None, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 1}, {"If-None-Match": "*"}, 304),
        ("post", "/v1/levels", dict(slow, deadline_ms=1), {}, 504),
        ("post", "/v1/levels", {"algorithm": "authored", "seed": 3, "roomset": "sewer",
                                "params": {"rooms": 40}}, {}, 200),
        ("post", "/v1/levels", {"algorithm": "authored", "roomset": "lava"}, {}, 422),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 2, "floors": 3}, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 2, "floors": 2},
         {"Accept": "text/plain"}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "floors": 99}, {}, 422),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 2,
                                "targets": {"path_min": 1000000, "attempts_max": 2}}, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "targets": {"nope": 1}}, {}, 422),
        ("get", "/v1/roomsets", None, {}, 200),
        ("get", "/v1/tables", None, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 3,
                                "params": {"population": True, "table": "fantasy",
                                           "pacing": [[0, 0], [50, 80], [100, 100]]}}, {}, 200),
        ("post", "/v1/levels", {"algorithm": "classic", "seed": 3,
                                "params": {"population": True, "table": "nope"}}, {}, 422),
        ("get", "/v1/algorithms", None, {}, 200),
        ("get", "/v1/stats", None, {}, 200),
        ("get", "/metrics", None, {}, 200),
        ("get", "/livez", None, {}, 200),
        ("get", "/healthz", None, {}, 200),
        ("get", "/readyz", None, {}, 200),
        ("put", "/v1/lobbies/{lobby}", {"profile": "party"}, {}, 201),
        ("put", "/v1/lobbies/{lobby}/players/{player}", {"level": 4}, {}, 200),
        ("get", "/v1/lobbies/{lobby}", None, {}, 200),
        ("post", "/v1/lobbies/{lobby}/start", None, {}, 200),
        ("post", "/v1/lobbies/{lobby}/start", None, {"Accept": "image/svg+xml"}, 200),
        ("put", "/v1/lobbies/{lobby}/players/{player}", {"level": 4}, {}, 409),
        ("delete", "/v1/lobbies/{lobby}/players/{player}", None, {}, 409),
        ("put", "/v1/lobbies/{lobby}", {"params": {"width": 1}}, {}, 422),
        ("get", "/v1/lobbies/{lobby}-none", None, {}, 404),
    ]
    problems = []
    # The example content tables, so that levels with entities are checked too.
    tables = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "config",
                          "tables")
    d = harness.Daemon(limits={"body_bytes_max": 4096}, extra={"tables_dir": tables})
    try:
        for method, path, body, headers, expected in cases:
            template = path.split("?")[0]
            if "{lobby}-none" in path:
                template = "/v1/lobbies/{lobby}"
            url = path.replace("{lobby}", "oa").replace("{player}", "p1")
            if "{lobby}" in path and "{lobby}-none" not in path and status_of_case(path, body):
                url = url.replace("/oa", "/oa2")
            status, got_headers, data = d.request(method.upper(), url, body, headers)
            path = template
            label = f"{method.upper()} {path} -> {status}"
            if status != expected:
                problems.append(f"{label}: expected {expected}")
                continue
            if status in (204, 304):
                continue
            content_type = got_headers["content-type"].split(";")[0]
            try:
                schema = schema_of(path, method, status, content_type)
            except KeyError:
                problems.append(f"{label}: {content_type} not described")
                continue
            value = json.loads(data) if content_type.endswith("json") else data.decode()
            problems += [f"{label}: {e}" for e in validate(value, schema)]
            if "x-request-id" not in got_headers:
                problems.append(f"{label}: no X-Request-Id")
        # 405 and 503 (queue full) on the levels route.
        status, got_headers, data = d.request("DELETE", "/v1/levels")
        problems += [f"GET /v1/levels 405: {e}" for e in
                     validate(json.loads(data), schema_of("/v1/levels", "post", 405,
                                                          "application/problem+json"))]
    finally:
        code = d.stop()
    if code != 0:
        problems.append(f"daemon exit status {code}")
    # 503 from a full queue: one worker, no queue.
    d = harness.Daemon(workers=1, limits={"interactive_queue_max": 0})
    try:
        result = {}
        runner = threading.Thread(
            target=lambda: result.setdefault("slow", d.request("POST", "/v1/levels", slow)[0]))
        runner.start()
        d.wait_for(lambda s: s["workers"]["busy"] == 1)
        status, got_headers, data = d.request("POST", "/v1/levels", {"algorithm": "classic"})
        if status != 503 or "retry-after" not in got_headers:
            problems.append(f"queue full: {status} {got_headers}")
        else:
            problems += [f"503: {e}" for e in validate(
                json.loads(data), schema_of("/v1/levels", "post", 503, "application/problem+json"))]
        runner.join()
    finally:
        code = d.stop()
    if code != 0:
        problems.append(f"daemon exit status {code}")
    if problems:
        failed += 1
        print("not ok 3 - answers match the schemas", flush=True)
        for p in problems:
            print("# " + p)
    else:
        print("ok 3 - answers match the schemas", flush=True)

    request_schema = spec["paths"]["/v1/levels"]["post"]["requestBody"]["content"][
        "application/json"]
    example_errors = []
    for name, example in request_schema["examples"].items():
        example_errors += [f"{name}: {e}" for e in validate(example["value"],
                                                            request_schema["schema"])]
    # And the schema rejects what the daemon rejects.
    example_errors += [] if validate({"algorithm": "classic", "colour": 1},
                                     request_schema["schema"]) else ["unknown member accepted"]
    example_errors += [] if validate({"algorithm": "classic", "targets": {"path_mni": 1}},
                                     request_schema["schema"]) else ["unknown target accepted"]
    if example_errors:
        failed += 1
        print("not ok 4 - request examples match the schema", flush=True)
        for e in example_errors:
            print("# " + e)
    else:
        print("ok 4 - request examples match the schema", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
