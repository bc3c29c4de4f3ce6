#!/usr/bin/env python3
"""Writes deploy/monitoring/dungeond-dashboard.json, the Grafana dashboard of
dungeond (docs/monitoring.md), from the panel list below, so that panels are
laid out and numbered mechanically and every query has one selector.

Usage: deploy/monitoring/dashboard.py [--check]
  --check  exit 1 if dungeond-dashboard.json differs from what would be written
Python 3 standard library only. tests/deploy/monitoring_check.py checks the
file is fresh and that every series its queries name is in a running
daemon's /metrics.
"""
import argparse
import json
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dungeond-dashboard.json")
DS = {"type": "prometheus", "uid": "${datasource}"}
# Every query selects the replicas chosen in the dashboard's variables.
SEL = 'job=~"$job", instance=~"$instance"'
RATE = "$__rate_interval"


def quantile(q, metric, by=""):
    group = f"{by}, le" if by else "le"
    return (f"histogram_quantile({q}, sum by ({group}) "
            f"(rate({metric}_bucket{{{SEL}}}[{RATE}])))")


def ratio(numerator, denominator):
    return f"{numerator}\n  /\n{denominator}"


# (title, kind, unit, width, description, [(expr, legend)], options)
# kind: "row", "stat" (a single figure) or "timeseries".
PANELS = [
    ("Overview", "row", None, 24, None, [], {}),
    ("Version", "stat", "none", 4, "dungeond version of the selected replicas, and how many run it.",
     [(f"count by (version) (dungeond_build_info{{{SEL}}})", "{{version}}")], {}),
    ("Replicas", "stat", "none", 4, "Replicas reporting metrics; draining ones after SIGTERM.",
     [(f"count(dungeond_uptime_seconds{{{SEL}}})", "reporting"),
      (f"sum(dungeond_draining{{{SEL}}})", "draining")], {}),
    ("5xx ratio (5m)", "stat", "percentunit", 4,
     "Share of responses that are 5xx; the availability objective is at most 0.1%.",
     [(ratio(f'(sum(rate(dungeond_http_requests_total{{code=~"5..", {SEL}}}[5m]))\n'
             f"  or 0 * sum(rate(dungeond_http_requests_total{{{SEL}}}[5m])))",
             f"sum(rate(dungeond_http_requests_total{{{SEL}}}[5m]))"), "5xx")],
     {"thresholds": [(None, "green"), (0.001, "red")]}),
    ("Request p99 (5m)", "stat", "s", 4,
     "99th percentile of HTTP request time; the latency objective is 0.5 s.",
     [(quantile(0.99, "dungeond_http_request_duration_seconds").replace(RATE, "5m"), "p99")],
     {"thresholds": [(None, "green"), (0.5, "red")]}),
    ("Pre-generation hit ratio (30m)", "stat", "percentunit", 4,
     "Share of match starts whose level was ready (X-Pregen: hit).",
     [(ratio(f'sum(rate(dungeond_lobby_starts_total{{pregen="hit", {SEL}}}[30m]))',
             f"sum(rate(dungeond_lobby_starts_total{{{SEL}}}[30m]))"), "hit ratio")],
     {"thresholds": [(None, "red"), (0.5, "yellow"), (0.8, "green")]}),
    ("Lobby memory (max replica)", "stat", "percentunit", 4,
     "Lobby state against limits.lobby_bytes_max on the fullest replica.",
     [(f"max(dungeond_lobby_bytes{{{SEL}}} / (dungeond_lobby_bytes_max{{{SEL}}} > 0))", "used")],
     {"thresholds": [(None, "green"), (0.8, "yellow"), (0.9, "red")]}),

    ("Traffic and errors", "row", None, 24, None, [], {}),
    ("Requests by status", "timeseries", "reqps", 6, "HTTP responses a second, by status code.",
     [(f"sum by (code) (rate(dungeond_http_requests_total{{{SEL}}}[{RATE}]))", "{{code}}")], {}),
    ("Responses by outcome", "timeseries", "reqps", 6,
     "HTTP responses a second: ok, client_error (4xx: the client's mistake), server_error "
     "(5xx but 503 and 504), timeout (504, deadline_ms) and rejected (503, a limit or the drain).",
     [(f"sum by (outcome) (rate(dungeond_http_responses_total{{{SEL}}}[{RATE}]))",
       "{{outcome}}")], {"stack": True}),
    ("Errors by kind", "timeseries", "reqps", 6,
     "4xx and 5xx responses by code, requests refused by a limit by reason, and level "
     "requests that did not succeed, by algorithm and outcome.",
     [(f'sum by (code) (rate(dungeond_http_requests_total{{code=~"[45]..", {SEL}}}[{RATE}]))',
       "HTTP {{code}}"),
      (f"sum by (reason) (rate(dungeond_rejections_total{{{SEL}}}[{RATE}]))",
       "refused: {{reason}}"),
      (f'sum by (algorithm, outcome) (rate(dungeond_level_requests_total{{outcome!="ok", {SEL}}}'
       f"[{RATE}]))", "level {{outcome}}: {{algorithm}}")], {}),
    ("Level requests by algorithm", "timeseries", "reqps", 6,
     "POST /v1/levels and lobby starts a second, by algorithm and outcome.",
     [(f"sum by (algorithm, outcome) (rate(dungeond_level_requests_total{{{SEL}}}[{RATE}]))",
       "{{algorithm}} {{outcome}}")], {}),

    ("Latency", "row", None, 24, None, [], {}),
    ("Request latency", "timeseries", "s", 8,
     "HTTP request time (first byte read to response queued), all routes and methods.",
     [(quantile(q, "dungeond_http_request_duration_seconds"), f"p{int(q * 100)}")
      for q in (0.5, 0.9, 0.99)], {}),
    ("Generation p99 by algorithm", "timeseries", "s", 8,
     "99th and 50th percentile of generation per level (serialisation apart).",
     [(quantile(0.99, "dungeond_generation_duration_seconds", "algorithm"), "{{algorithm}} p99"),
      (quantile(0.5, "dungeond_generation_duration_seconds", "algorithm"), "{{algorithm}} p50")],
     {}),
    ("Mean generation time by algorithm", "timeseries", "s", 8,
     "Seconds of generation per level, averaged over the interval.",
     [(ratio(f"sum by (algorithm) (rate(dungeond_generation_duration_seconds_sum{{{SEL}}}[{RATE}]))",
             f"sum by (algorithm) (rate(dungeond_generation_duration_seconds_count{{{SEL}}}"
             f"[{RATE}]))"), "{{algorithm}}")], {}),
    ("Request p99 by route", "timeseries", "s", 12,
     "99th percentile of request time per route template and method (route \"other\": no "
     "route matched).",
     [(quantile(0.99, "dungeond_http_request_duration_seconds", "route, method"),
       "{{method}} {{route}}")], {}),
    ("Serialisation p99 by algorithm", "timeseries", "s", 12,
     "99th and 50th percentile of writing a generated level in the format asked for.",
     [(quantile(0.99, "dungeond_serialisation_duration_seconds", "algorithm"), "{{algorithm}} p99"),
      (quantile(0.5, "dungeond_serialisation_duration_seconds", "algorithm"), "{{algorithm}} p50")],
     {}),

    ("Queues and workers", "row", None, 24, None, [], {}),
    ("Queue depth", "timeseries", "short", 8,
     "Generation jobs waiting, by queue (interactive: requests; speculative: pre-generation).",
     [(f"sum by (queue) (dungeond_queue_depth{{{SEL}}})", "{{queue}}")], {}),
    ("Queue fill", "timeseries", "percentunit", 8,
     "Depth against capacity per replica; a full interactive queue answers 503 (queue_full).",
     [(f"max by (instance, queue) (dungeond_queue_depth{{{SEL}}} / "
       f"(dungeond_queue_capacity{{{SEL}}} > 0))", "{{instance}} {{queue}}")],
     {"max": 1}),
    ("Queue wait", "timeseries", "s", 8, "Time generation jobs spent queued before a worker took them.",
     [(quantile(0.5, "dungeond_queue_wait_seconds"), "p50"),
      (quantile(0.99, "dungeond_queue_wait_seconds"), "p99")], {}),
    ("Workers", "timeseries", "short", 12,
     "Worker threads, those running a job, and those running pre-generation.",
     [(f"sum(dungeond_workers{{{SEL}}})", "workers"),
      (f"sum(dungeond_workers_busy{{{SEL}}})", "busy"),
      (f"sum(dungeond_speculative_jobs_running{{{SEL}}})", "pre-generating")], {}),
    ("Worker use", "timeseries", "percentunit", 12, "Busy workers against workers, per replica.",
     [(f"dungeond_workers_busy{{{SEL}}} / (dungeond_workers{{{SEL}}} > 0)", "{{instance}}")],
     {"max": 1}),
    ("Heavy maps giving way", "timeseries", "short", 24,
     "Heavy jobs pause while light requests run (limits.yield_percent): pauses a second, and "
     "seconds paused a second (at most the yield_percent share of the heavy jobs' time).",
     [(f"sum(rate(dungeond_job_pauses_total{{{SEL}}}[{RATE}]))", "pauses/s"),
      (f"sum(rate(dungeond_job_paused_seconds_total{{{SEL}}}[{RATE}]))", "paused s/s")], {}),

    ("Pre-generation", "row", None, 24, None, [], {}),
    ("Match starts by outcome", "timeseries", "reqps", 6,
     "POST /v1/lobbies/{lobby}/start a second: hit (level ready), wait (in flight), miss "
     "(generated at the start).",
     [(f"sum by (pregen) (rate(dungeond_lobby_starts_total{{{SEL}}}[{RATE}]))", "{{pregen}}")],
     {"stack": True}),
    ("Hit ratio", "timeseries", "percentunit", 6, "Share of starts that were hits.",
     [(ratio(f'sum(rate(dungeond_lobby_starts_total{{pregen="hit", {SEL}}}[{RATE}]))',
             f"sum(rate(dungeond_lobby_starts_total{{{SEL}}}[{RATE}]))"), "hit ratio")],
     {"max": 1}),
    ("Speculative jobs by fate", "timeseries", "ops", 6,
     "Pre-generation jobs started, superseded by a newer party, expired, or evicted for memory.",
     [(f"sum by (fate) (rate(dungeond_speculative_jobs_total{{{SEL}}}[{RATE}]))", "{{fate}}")],
     {}),
    ("Generation time saved", "timeseries", "s", 6,
     "Seconds of generation a second that starts did not wait for, thanks to hits.",
     [(f"sum(rate(dungeond_pregen_saved_seconds_total{{{SEL}}}[{RATE}]))", "saved")], {}),

    ("Lobbies and memory", "row", None, 24, None, [], {}),
    ("Lobbies", "timeseries", "short", 8, "Lobbies alive per replica.",
     [(f"sum by (instance) (dungeond_lobbies{{{SEL}}})", "{{instance}}")], {"stack": True}),
    ("Lobby memory", "timeseries", "bytes", 8,
     "All lobby state (settings, players, ready levels), the ready levels alone, and "
     "limits.lobby_bytes_max, per replica.",
     [(f"sum by (instance) (dungeond_lobby_bytes{{{SEL}}})", "{{instance}} lobbies"),
      (f"sum by (instance) (dungeond_pregen_ready_bytes{{{SEL}}})", "{{instance}} ready levels"),
      (f"sum by (instance) (dungeond_lobby_bytes_max{{{SEL}}})", "{{instance}} lobby_bytes_max")],
     {}),
    ("Lobby memory / lobby_bytes_max", "timeseries", "percentunit", 8,
     "At 100% ready levels are evicted and new lobby state is refused with 503.",
     [(f"dungeond_lobby_bytes{{{SEL}}} / (dungeond_lobby_bytes_max{{{SEL}}} > 0)", "{{instance}}")],
     {"max": 1, "thresholds": [(None, "green"), (0.9, "red")]}),

    ("Connections", "row", None, 24, None, [], {}),
    ("Open connections", "timeseries", "short", 8,
     "Open connections on the API listener and on the health listener, per replica.",
     [(f"sum by (instance) (dungeond_connections{{{SEL}}})", "{{instance}} api"),
      (f"sum by (instance) (dungeond_health_connections{{{SEL}}})", "{{instance}} health")], {}),
    ("Connection events", "timeseries", "ops", 8,
     "Connections refused, cut or dropped a second, by event (docs/config.md, Connection events).",
     [(f"sum by (event) (rate(dungeond_connection_events_total{{{SEL}}}[{RATE}]))", "{{event}}")],
     {}),
    ("Bytes out", "timeseries", "bytes", 8,
     "Response bytes queued to clients and not yet sent (send_queue_bytes_max bounds it), and "
     "response bytes sent a second.",
     [(f"sum by (instance) (dungeond_send_queue_bytes{{{SEL}}})", "{{instance}} queued"),
      (f"sum by (instance) (rate(dungeond_http_response_bytes_total{{{SEL}}}[{RATE}]))",
       "{{instance}} sent/s")], {}),
    ("Log lines lost", "timeseries", "ops", 8,
     "Log lines that could not be written a second (a full disk, the log past RLIMIT_FSIZE); "
     "the daemon counts them and goes on (docs/config.md, Connection events).",
     [(f"sum by (instance) (rate(dungeond_log_write_failures_total{{{SEL}}}[{RATE}]))",
       "{{instance}}")], {}),

    ("Process", "row", None, 24, None, [], {}),
    ("CPU", "timeseries", "percentunit", 8,
     "CPU time (user and system) a second per replica: 1 is one core.",
     [(f"sum by (instance) (rate(process_cpu_seconds_total{{{SEL}}}[{RATE}]))", "{{instance}}")],
     {}),
    ("Resident memory", "timeseries", "bytes", 8,
     "Resident set size per replica (the pod's memory limit counts this and the page cache).",
     [(f"sum by (instance) (process_resident_memory_bytes{{{SEL}}})", "{{instance}} resident"),
      (f"sum by (instance) (process_virtual_memory_bytes{{{SEL}}})", "{{instance}} virtual")],
     {}),
    ("Open files", "timeseries", "percentunit", 8,
     "Open file descriptors against the soft RLIMIT_NOFILE; at 100% accepts fail "
     "(accept_error).",
     [(f"max by (instance) (process_open_fds{{{SEL}}} / (process_max_fds{{{SEL}}} > 0))",
       "{{instance}} open / max")],
     {"max": 1}),
    ("Configuration reloads", "timeseries", "short", 8,
     "Configuration generation per replica (reloads applied by SIGHUP) and failed reloads in "
     "the interval: a failed one leaves the replica on its old configuration.",
     [(f"max by (instance) (dungeond_config_generation{{{SEL}}})", "{{instance}} generation"),
      (f'sum by (instance) (increase(dungeond_config_reloads_total{{result="failed", {SEL}}}'
       f"[{RATE}]))", "{{instance}} failed")], {}),
    ("Uptime", "timeseries", "s", 8,
     "Seconds since each replica's process started: a drop is a restart.",
     [(f"time() - max by (instance) (process_start_time_seconds{{{SEL}}})", "{{instance}}")], {}),
]


def thresholds(steps):
    return {"mode": "absolute",
            "steps": [{"color": color, "value": value} for value, color in steps]}


def panel(number, title, kind, unit, width, description, targets, options, x, y):
    height = 1 if kind == "row" else 4 if kind == "stat" else 8
    p = {"id": number, "type": kind, "title": title,
         "gridPos": {"h": height, "w": width, "x": x, "y": y}}
    if kind == "row":
        p.update({"collapsed": False, "panels": []})
        return p, height
    defaults = {"unit": unit}
    if "max" in options:
        defaults.update({"min": 0, "max": options["max"]})
    if "thresholds" in options:
        defaults["thresholds"] = thresholds(options["thresholds"])
    if kind == "timeseries":
        defaults["custom"] = {"fillOpacity": 10, "showPoints": "never",
                              "stacking": {"mode": "normal" if options.get("stack") else "none",
                                           "group": "A"}}
        if "thresholds" in options:
            defaults["custom"]["thresholdsStyle"] = {"mode": "line"}
        p["options"] = {"legend": {"displayMode": "list", "placement": "bottom",
                                   "showLegend": True},
                        "tooltip": {"mode": "multi", "sort": "desc"}}
    else:
        p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "",
                                          "values": False},
                        "colorMode": "value", "graphMode": "area", "textMode": "auto",
                        "justifyMode": "auto", "orientation": "auto"}
    p.update({"description": description, "datasource": DS,
              "fieldConfig": {"defaults": defaults, "overrides": []},
              "targets": [{"datasource": DS, "expr": expr, "legendFormat": legend,
                           "refId": chr(ord("A") + i)}
                          for i, (expr, legend) in enumerate(targets)]})
    return p, height


def layout():
    """Panels left to right, wrapping at Grafana's 24 columns."""
    panels, x, y, row_height = [], 0, 0, 0
    for number, (title, kind, unit, width, description, targets, options) in enumerate(PANELS, 1):
        if x + width > 24 or kind == "row":
            x, y, row_height = 0, y + row_height, 0
        p, height = panel(number, title, kind, unit, width, description, targets, options, x, y)
        panels.append(p)
        x, row_height = x + width, max(row_height, height)
    return panels


def variable(name, label, query):
    return {"name": name, "label": label, "type": "query", "datasource": DS,
            "definition": query, "query": {"query": query, "refId": f"{name}-values"},
            "refresh": 2, "includeAll": True, "multi": True, "allValue": ".*",
            "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
            "sort": 1, "hide": 0, "options": [], "regex": "", "skipUrlSync": False}


def dashboard():
    return {
        "title": "dungeond",
        "uid": "dungeond",
        "description": "dungeond level-generation service: traffic, errors, latency per "
                       "algorithm, queues, pre-generation, lobbies and connections "
                       "(docs/monitoring.md).",
        "tags": ["dungeond"],
        "editable": True,
        "graphTooltip": 1,
        "refresh": "30s",
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-6h", "to": "now"},
        "timezone": "",
        "annotations": {"list": [{
            "builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
            "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
            "name": "Annotations & Alerts", "type": "dashboard"}]},
        "templating": {"list": [
            {"name": "datasource", "label": "Data source", "type": "datasource",
             "query": "prometheus", "current": {}, "hide": 0, "includeAll": False,
             "multi": False, "options": [], "refresh": 1, "regex": "", "skipUrlSync": False},
            variable("job", "Job", "label_values(dungeond_build_info, job)"),
            variable("instance", "Replica",
                     'label_values(dungeond_build_info{job=~"$job"}, instance)'),
        ]},
        "panels": layout(),
    }


def render():
    return json.dumps(dashboard(), indent=2) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = render()
    if args.check:
        with open(OUT) as f:
            if f.read() != text:
                print(f"{OUT} is stale: run deploy/monitoring/dashboard.py", file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
