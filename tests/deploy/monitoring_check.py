#!/usr/bin/env python3
"""deploy/monitoring/, checked mechanically: the Prometheus rules through the
real promtool (`check rules`, and `test rules` on their unit tests), the
Grafana dashboard against its generator and Grafana's layout rules, every
dashboard query through promtool's PromQL parser, and every series name,
label and label value the rules and the dashboard use against the /metrics
output of a real daemon that served levels, an error, a deadline and a
lobby start. Then a real Prometheus server scrapes such a daemon with the
rules loaded: every rule evaluates without error and every recorded series
and every dashboard query has data.

Usage: monitoring_check.py PATH/TO/dungeond
Prints TAP. Needs promtool and prometheus (Debian's prometheus package)
and python3-yaml.
"""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
MONITORING = os.path.join(ROOT, "deploy", "monitoring")
RULES = os.path.join(MONITORING, "dungeond-rules.yaml")
RULES_TEST = os.path.join(MONITORING, "dungeond-rules.test.yaml")
DASHBOARD = os.path.join(MONITORING, "dungeond-dashboard.json")
DOC = os.path.join(ROOT, "docs", "monitoring.md")
sys.path.insert(0, os.path.join(HERE, "..", "http"))
sys.path.insert(0, MONITORING)
import dungeond_http as harness  # noqa: E402
from dungeond_http import check  # noqa: E402
import dashboard  # noqa: E402

import yaml  # noqa: E402  python3-yaml (deploy/install-deps.sh)

# Labels Prometheus adds to every scraped series (target labels; the last
# five come from the ServiceMonitor's Kubernetes service discovery).
TARGET_LABELS = {"job", "instance", "namespace", "pod", "service", "endpoint", "container"}
# Series Prometheus itself makes for each target; none of them is in
# /metrics. (None is used now; `up` is the one a target-down rule would use.)
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
# Series, or label values of a series, that a daemon exports only under a
# condition this test does not bring about. Each entry says the condition;
# the test checks that the name still occurs in the daemon's source (so a
# rename fails here) and that the entry is still needed. Empty now: the
# exercise below makes every series and value the rules and the dashboard
# use appear (a 504 for code=~"5..", a 422 for "4..", a lobby start for
# the pregen values).
CONDITIONAL = {
    # "series_name": "why it may be absent",
}
# Metric families the daemon exports that need no panel of their own.
NOT_ON_DASHBOARD = {}


# ------------------------------------------------------------------ PromQL
AGGREGATORS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
               "count_values", "bottomk", "topk", "quantile"}
LABEL_LISTS = {"by", "without", "on", "ignoring", "group_left", "group_right"}
KEYWORDS = {"bool", "and", "or", "unless", "offset", "atan2", "inf", "nan"} | AGGREGATORS
TOKEN = re.compile(r'\s+|(?P<string>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`)'
                   r"|(?P<number>[0-9][0-9a-zA-Z._]*(?:[eE][-+][0-9]+)?)"
                   r"|(?P<ident>[a-zA-Z_:][a-zA-Z0-9_:]*)"
                   r"|(?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=(){}\[\],])")


def tokens(expr):
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise AssertionError(f"cannot read PromQL at {expr[pos:pos + 30]!r} in {expr!r}")
        pos = m.end()
        for kind in ("string", "number", "ident", "op"):
            if m.group(kind) is not None:
                out.append((kind, m.group(kind)))
    return out


def unquote(text):
    return text[1:-1] if text[0] == "`" else json.loads('"' + text[1:-1] + '"')


def selectors(expr):
    """(series name, [(label, op, value)]) for every selector in `expr`, and
    the label names of its by/without/on/ignoring/group_* lists."""
    toks = tokens(expr)
    found, grouping, i = [], set(), 0
    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1][1] if i + 1 < len(toks) else None
        if kind == "ident" and text in LABEL_LISTS:
            i += 1
            if nxt == "(":
                while toks[i][1] != ")":
                    if toks[i][0] == "ident":
                        grouping.add(toks[i][1])
                    i += 1
            continue
        if kind == "op" and text == "[":  # a range or a subquery's step
            while toks[i][1] != "]":
                i += 1
        elif kind == "ident" and nxt == "(" or kind == "ident" and text in KEYWORDS:
            pass  # a function, an aggregation or an operator
        elif kind == "ident" or text == "{":
            name = text if kind == "ident" else None
            matchers = []
            if kind == "ident" and nxt == "{" or text == "{":
                i += 2 if kind == "ident" else 1
                while toks[i][1] != "}":
                    label, op, value = toks[i][1], toks[i + 1][1], unquote(toks[i + 2][1])
                    matchers.append((label, op, value))
                    i += 3
                    if toks[i][1] == ",":
                        i += 1
            if name is None:
                name = next((v for l, o, v in matchers if l == "__name__" and o == "="), None)
                check(name, f"a selector without a series name in {expr!r}")
            found.append((name, matchers))
        i += 1
    return found, grouping


def grafana_to_promql(expr):
    """Grafana's interval variables as a fixed window; $job and $instance
    only occur in label values, where they stay (a valid regular expression)."""
    return expr.replace("$__rate_interval", "5m").replace("$__interval", "1m")


def dashboard_queries(board):
    """(where, PromQL) for every panel target, and the selector of each
    variable's label_values(...) query with the label it lists."""
    queries, variables = [], []
    for p in board["panels"]:
        for t in p.get("targets", []):
            queries.append((f"panel {p['id']} '{p['title']}' {t['refId']}",
                            grafana_to_promql(t["expr"])))
    for v in board["templating"]["list"]:
        if v["type"] == "query":
            m = re.fullmatch(r"label_values\((.+),\s*([a-zA-Z_]\w*)\)", v["query"]["query"])
            check(m, f"variable {v['name']}: not label_values(series, label)")
            variables.append((f"variable {v['name']}", m.group(1), m.group(2)))
    return queries, variables


def rule_queries(rules):
    return [(f"rule {r.get('record') or r.get('alert')}", r["expr"])
            for g in rules["groups"] for r in g["rules"]]


# ------------------------------------------------------------------ /metrics
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$")
LABEL = re.compile(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text):
    """{series name: {label: set of values}} and the families' names."""
    series, families = {}, set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            families.add(line.split()[2])
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        check(m, f"unreadable /metrics line {line!r}")
        labels = series.setdefault(m.group(1), {})
        for name, value in LABEL.findall(m.group(2) or ""):
            labels.setdefault(name, set()).add(value)
    return series, families


def source_metric_names():
    """Every dungeond_* and process_* name written in the daemon's C sources
    (wherever in src/server they live)."""
    names = set()
    for path in glob.glob(os.path.join(ROOT, "src", "server", "**", "*.c"), recursive=True):
        with open(path) as f:
            names |= set(re.findall(r"\b((?:dungeond|process)_[a-z0-9_]+)", f.read()))
    return names


def exercise(d, lobby="monitoring"):
    """A level, a 422, a 504 and a lobby's pre-generated start."""
    status = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 1})[0]
    check(status == 200, f"POST /v1/levels {status}")
    status = d.request("POST", "/v1/levels", {"algorithm": "classic", "seed": 1,
                                              "params": {"width": 5}})[0]
    check(status == 422, f"width 5: {status}")
    slow = dict(harness.SLOW, deadline_ms=1)
    status = d.request("POST", "/v1/levels", slow)[0]
    check(status == 504, f"a 1 ms deadline on a slow level: {status}")
    status = d.request("PUT", f"/v1/lobbies/{lobby}/players/p1", {"level": 3})[0]
    check(status in (200, 201), f"join {status}")
    harness.wait_pregen(d, lobby, "ready")
    status, headers, _ = d.request("POST", f"/v1/lobbies/{lobby}/start")
    check(status == 200 and headers.get("x-pregen") == "hit",
          f"start {status} {headers.get('x-pregen')}")


def exercised_metrics():
    """A real daemon's /metrics text after exercise()."""
    d = harness.Daemon()
    try:
        exercise(d)
        status, headers, body = d.request("GET", "/metrics")
        check(status == 200, f"GET /metrics {status}")
        return body.decode()
    finally:
        code = d.stop()
        check(code == 0, f"daemon exit {code}")
        check(not d.sanitizer_reports(), f"sanitizer: {d.sanitizer_reports()[:3]}")


# ------------------------------------------------------------------ checks
def promtool():
    tool = shutil.which("promtool")
    check(tool, "promtool not found: deploy/install-deps.sh installs Debian's prometheus")
    return tool


def run(args, **kwargs):
    r = subprocess.run(args, capture_output=True, text=True, timeout=300, **kwargs)
    for line in (r.stdout + r.stderr).splitlines():
        print(f"# {line}", flush=True)
    return r


def check_rules(ctx):
    r = run([promtool(), "check", "rules", RULES])
    check(r.returncode == 0, "promtool check rules failed")


def test_rules(ctx):
    harness.release_leg_only("promtool test rules")
    r = run([promtool(), "test", "rules", os.path.basename(RULES_TEST)], cwd=MONITORING)
    check(r.returncode == 0, "promtool test rules failed")


def alerts_tested_and_documented(ctx):
    """Every alert fires in at least one unit test, carries a severity, a
    summary, a description and a runbook link to its section in
    docs/monitoring.md."""
    with open(RULES_TEST) as f:
        tests = yaml.safe_load(f)
    fired = {case["alertname"] for t in tests["tests"] for case in t.get("alert_rule_test", [])
             if case.get("exp_alerts")}
    with open(DOC) as f:
        anchors = {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-")
                   for h in re.findall(r"^#+ (.*)$", f.read(), re.M)}
    alerts = [r for g in ctx["rules"]["groups"] for r in g["rules"] if "alert" in r]
    check(alerts, "no alerts")
    for r in alerts:
        name = r["alert"]
        check(name in fired, f"{name} fires in no test of {os.path.basename(RULES_TEST)}")
        check(r.get("labels", {}).get("severity") in ("critical", "warning"),
              f"{name}: severity {r.get('labels')}")
        for key in ("summary", "description", "runbook_url"):
            check(r.get("annotations", {}).get(key), f"{name}: no {key}")
        url = r["annotations"]["runbook_url"]
        check(url == f"docs/monitoring.md#{name.lower()}" and name.lower() in anchors,
              f"{name}: runbook_url {url} has no section in docs/monitoring.md")


def dashboard_fresh(ctx):
    check(ctx["dashboard_text"] == dashboard.render(),
          "deploy/monitoring/dungeond-dashboard.json is stale: run deploy/monitoring/dashboard.py")


def dashboard_layout(ctx):
    """What Grafana needs to lay the dashboard out and query it: unique
    panel ids, panels inside the 24 columns and not overlapping, each query
    with its own refId on the dashboard's data source variable."""
    board = ctx["dashboard"]
    ids = [p["id"] for p in board["panels"]]
    check(len(ids) == len(set(ids)), f"duplicate panel ids {ids}")
    cells = {}
    for p in board["panels"]:
        g = p["gridPos"]
        check(g["x"] >= 0 and g["w"] > 0 and g["x"] + g["w"] <= 24 and g["h"] > 0,
              f"panel {p['id']} outside the grid: {g}")
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                check((x, y) not in cells, f"panels {cells.get((x, y))} and {p['id']} overlap")
                cells[(x, y)] = p["id"]
        if p["type"] == "row":
            continue
        check(p["type"] in ("timeseries", "stat"), f"panel {p['id']}: type {p['type']}")
        check(p.get("targets"), f"panel {p['id']} '{p['title']}' has no query")
        check(p["datasource"] == {"type": "prometheus", "uid": "${datasource}"},
              f"panel {p['id']}: datasource {p['datasource']}")
        refs = [t["refId"] for t in p["targets"]]
        check(len(refs) == len(set(refs)), f"panel {p['id']}: refIds {refs}")
        for t in p["targets"]:
            check(t.get("expr") and t["datasource"] == p["datasource"],
                  f"panel {p['id']} {t.get('refId')}: no expr or another data source")
            check('job=~"$job"' in t["expr"] and 'instance=~"$instance"' in t["expr"],
                  f"panel {p['id']} {t['refId']}: not filtered by the job and replica variables")
    names = {v["name"] for v in board["templating"]["list"]}
    check({"datasource", "job", "instance"} <= names, f"variables {names}")


def dashboard_covers(ctx):
    """The issue's topics each have a panel, and every metric family the
    daemon exports is queried by some panel."""
    used = ctx["dashboard_series"]
    topics = {
        "rate": "dungeond_http_requests_total",
        "errors by kind": "dungeond_rejections_total",
        "latency per algorithm": "dungeond_generation_duration_seconds_bucket",
        "queue depth": "dungeond_queue_depth",
        "queue wait": "dungeond_queue_wait_seconds_bucket",
        "pre-generation hit/wait/miss": "dungeond_lobby_starts_total",
        "lobbies": "dungeond_lobbies",
        "lobby memory": "dungeond_lobby_bytes",
        "connection events": "dungeond_connection_events_total",
    }
    for topic, series in topics.items():
        check(series in used, f"no panel for {topic} ({series})")
    for family in sorted(ctx["families"]):
        if family in NOT_ON_DASHBOARD:
            continue
        check(any(s == family or s.startswith(family + "_") for s in used),
              f"{family} is exported but on no panel (add one, or list it in NOT_ON_DASHBOARD)")


def dashboard_parses(ctx):
    """Every dashboard query through promtool's PromQL parser: each as a
    recording rule of a temporary rule file."""
    queries, _ = ctx["dashboard_queries"]
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query:{i}", "expr": expr} for i, (_, expr) in enumerate(queries)]}]}
    work = tempfile.mkdtemp(prefix="dungeond-dashboard-")
    try:
        path = os.path.join(work, "dashboard-queries.yaml")
        with open(path, "w") as f:
            yaml.safe_dump(rules, f)
        r = run([promtool(), "check", "rules", path])
        check(r.returncode == 0, "a dashboard query is not valid PromQL")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def series_exist(ctx):
    """Every series, label and label value the rules and the dashboard name
    is in the real daemon's /metrics (recorded series resolve to what their
    rules read)."""
    exported = ctx["series"]
    recorded = {}  # recording rule name -> {label: values} of what it reads
    for g in ctx["rules"]["groups"]:
        for r in g["rules"]:
            if "record" in r:
                labels = {}
                for name, _ in selectors(r["expr"])[0]:
                    for label, values in exported.get(name, recorded.get(name, {})).items():
                        labels.setdefault(label, set()).update(values)
                recorded[r["record"]] = labels
    queries, variables = ctx["dashboard_queries"]
    problems = []
    everything = rule_queries(ctx["rules"]) + queries + [(w, s) for w, s, _ in variables]
    for where, expr in everything:
        found, grouping = selectors(expr)
        known = set(TARGET_LABELS)
        for name, matchers in found:
            if name in exported:
                labels = exported[name]
            elif name in recorded:
                labels = recorded[name]
            elif name in PROMETHEUS_SERIES or name in CONDITIONAL:
                continue
            else:
                problems.append(f"{where}: {name} is not in /metrics nor recorded by a rule")
                continue
            known |= set(labels)
            for label, op, value in matchers:
                if label in TARGET_LABELS or label == "__name__" or "$" in value:
                    continue  # Prometheus' labels; Grafana variables
                if label not in labels:
                    problems.append(f"{where}: {name} has no label {label}")
                elif op == "=" and value not in labels[label]:
                    problems.append(f"{where}: {name}{{{label}=\"{value}\"}} never seen "
                                    f"(values: {sorted(labels[label])})")
                elif op == "=~" and not any(re.fullmatch(value, v) for v in labels[label]):
                    problems.append(f"{where}: {name}{{{label}=~\"{value}\"}} matches none of "
                                    f"{sorted(labels[label])}")
        for label in grouping - known:
            problems.append(f"{where}: groups by {label}, which none of its series has")
    for where, selector, label in variables:
        name = selectors(selector)[0][0][0]
        if label not in TARGET_LABELS and label not in exported.get(name, {}):
            problems.append(f"{where}: {name} has no label {label}")
    check(not problems, "; ".join(problems))


def allow_list_current(ctx):
    """Each CONDITIONAL entry is still a name of the daemon's source and is
    still needed (absent from this run's /metrics)."""
    source = source_metric_names()
    check(source, "no dungeond_ names found in src/server")
    for name, why in CONDITIONAL.items():
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        check(base in source, f"allow-listed {name} ({why}) is no metric of src/server")
        check(name not in ctx["series"], f"allow-listed {name} is exported anyway: drop it")
    # And the other way: what /metrics exports comes from the source this
    # test reads, so a rename there shows up here.
    for family in ctx["families"]:
        check(family in source, f"/metrics family {family} not found in src/server")


def exposition_lint(ctx):
    """promtool's own lint of the exposition format and naming conventions."""
    r = subprocess.run([promtool(), "check", "metrics"], input=ctx["metrics"],
                       capture_output=True, text=True, timeout=60)
    for line in (r.stdout + r.stderr).splitlines():
        print(f"# {line}", flush=True)
    check(r.returncode == 0, "promtool check metrics found problems")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    """A real Prometheus server on a free loopback port, scraping `targets`
    every second as job "dungeond" and evaluating the rules every second."""

    def __init__(self, targets):
        binary = shutil.which("prometheus")
        check(binary, "prometheus not found: deploy/install-deps.sh installs it")
        self.dir = tempfile.mkdtemp(prefix="dungeond-prometheus-")
        config = {"global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                  "rule_files": [RULES],
                  "scrape_configs": [{"job_name": "dungeond",
                                      "static_configs": [{"targets": targets}]}]}
        path = os.path.join(self.dir, "prometheus.yml")
        with open(path, "w") as f:
            yaml.safe_dump(config, f)
        self.port = free_port()
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen(
            [binary, f"--config.file={path}", f"--storage.tsdb.path={self.dir}/data",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.wait(lambda: self.get("/-/ready") is not None, "Prometheus never got ready")

    def get(self, path, **query):
        url = f"http://127.0.0.1:{self.port}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                body = r.read()
        except OSError:
            check(self.proc.poll() is None, f"Prometheus exited: {self.tail()}")
            return None
        return json.loads(body) if path.startswith("/api/") else body

    def query(self, expr):
        doc = self.get("/api/v1/query", query=expr)
        check(doc is not None and doc["status"] == "success", f"query {expr!r}: {doc}")
        return doc["data"]["result"]

    def wait(self, predicate, what, seconds=60):
        end = time.monotonic() + seconds
        while not predicate():
            check(time.monotonic() < end, f"{what}: {self.tail()}")
            time.sleep(0.2)

    def tail(self):
        self.log.seek(0)
        return " | ".join(self.log.read().splitlines()[-5:])

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def live_prometheus(ctx):
    """A real Prometheus scrapes a real daemon with the rules loaded: the
    target is up, every rule is loaded and evaluates without error (vector
    matching, types), and every recorded series and every dashboard query
    (variables set to all, $__rate_interval to 1m) has data."""
    d = harness.Daemon()
    prometheus = None
    try:
        prometheus = Prometheus([f"127.0.0.1:{d.port}"])
        # Two scrapes before the exercise and two after, so rates exist.
        samples = 'count_over_time(dungeond_uptime_seconds{job="dungeond"}[1m])'
        def scrapes():
            result = prometheus.query(samples)
            return int(float(result[0]["value"][1])) if result else 0
        prometheus.wait(lambda: scrapes() >= 2, "no two scrapes of the daemon")
        exercise(d)
        seen = scrapes()
        prometheus.wait(lambda: scrapes() >= seen + 2, "no two scrapes after the exercise")
        # And two rule evaluations after those scrapes.
        after = time.time()

        def evaluated():
            groups = prometheus.get("/api/v1/rules")["data"]["groups"]
            return all(g["lastEvaluation"] > time.strftime("%Y-%m-%dT%H:%M:%S",
                                                           time.gmtime(after + 1))
                       for g in groups)
        prometheus.wait(evaluated, "the rules were not evaluated")
        problems = []
        groups = prometheus.get("/api/v1/rules")["data"]["groups"]
        loaded = {r["name"] for g in groups for r in g["rules"]}
        ours = {r.get("record") or r["alert"] for g in ctx["rules"]["groups"] for r in g["rules"]}
        if loaded != ours:
            problems.append(f"loaded rules differ: {sorted(loaded ^ ours)}")
        for g in groups:
            for r in g["rules"]:
                if r["health"] != "ok":
                    problems.append(f"rule {r['name']}: {r['health']} {r.get('lastError')}")
        for r in (r for g in ctx["rules"]["groups"] for r in g["rules"] if "record" in r):
            if not prometheus.query(r["record"]):
                problems.append(f"recorded series {r['record']} has no data")
        queries, _ = ctx["dashboard_queries"]
        for where, expr in queries:
            expr = expr.replace("5m]", "1m]").replace("$job", "dungeond").replace("$instance", ".*")
            if not prometheus.query(expr):
                problems.append(f"{where}: no data for {expr!r}")
        check(not problems, "; ".join(problems))
        targets = prometheus.get("/api/v1/targets")["data"]["activeTargets"]
        check([t["health"] for t in targets] == ["up"], f"targets {targets}")
    finally:
        if prometheus is not None:
            prometheus.close()
        code = d.stop()
        check(code == 0, f"daemon exit {code}")
        check(not d.sanitizer_reports(), f"sanitizer: {d.sanitizer_reports()[:3]}")


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    ctx = {}
    with open(RULES) as f:
        ctx["rules"] = yaml.safe_load(f)
    with open(DASHBOARD) as f:
        ctx["dashboard_text"] = f.read()
    ctx["dashboard"] = json.loads(ctx["dashboard_text"])
    ctx["dashboard_queries"] = dashboard_queries(ctx["dashboard"])
    ctx["dashboard_series"] = {name for _, expr in ctx["dashboard_queries"][0]
                               for name, _ in selectors(expr)[0]}
    started = time.monotonic()
    ctx["metrics"] = exercised_metrics()
    print(f"# daemon exercised in {time.monotonic() - started:.1f} s", flush=True)
    ctx["series"], ctx["families"] = parse_exposition(ctx["metrics"])
    tests = [
        ("promtool check rules deploy/monitoring/dungeond-rules.yaml", check_rules),
        ("promtool test rules deploy/monitoring/dungeond-rules.test.yaml", test_rules),
        ("every alert fires in a unit test, has severity, summary, description, runbook section",
         alerts_tested_and_documented),
        ("dungeond-dashboard.json is what deploy/monitoring/dashboard.py writes", dashboard_fresh),
        ("dashboard: unique ids, panels on the grid without overlap, queries on the variables",
         dashboard_layout),
        ("dashboard: a panel for each topic and for every exported metric family",
         dashboard_covers),
        ("every dashboard query is valid PromQL (promtool)", dashboard_parses),
        ("every series, label and value of the rules and the dashboard is in a real /metrics",
         series_exist),
        ("allow-listed conditional series still named in src/server; /metrics families too",
         allow_list_current),
        ("promtool check metrics on the real /metrics", exposition_lint),
        ("a real Prometheus scraping a real daemon: every rule evaluates, every recorded "
         "series and dashboard query has data", live_prometheus),
    ]
    return harness.run_plan([(name, fn, ctx) for name, fn in tests])


if __name__ == "__main__":
    sys.exit(main())
