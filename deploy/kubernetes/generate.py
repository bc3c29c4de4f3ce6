#!/usr/bin/env python3
"""Writes deploy/kubernetes/dungeond.yaml, the Kubernetes bundle, from the
files it embeds, so each has one source of truth:

- deploy/nginx/dungeond.conf, the nginx site the test suite runs in front of
  two daemons (tests/http/nginx_http.py), with its two loopback upstream
  servers replaced by the StatefulSet's replicas' stable names;
- deploy/kubernetes/nginx.conf (nginx's main file) and run-nginx.sh;
- config/dungeond.json, with the container's listen address, room-set
  directory and the Secret's files for tokens and the lobby seed secret;
- the image tag: the project version in meson.build (see Containerfile).

It also writes deploy/kubernetes/dungeond-monitoring.yaml, the objects for
the Prometheus Operator (a ServiceMonitor, and a PrometheusRule holding
deploy/monitoring/dungeond-rules.yaml), kept apart because applying a
custom resource fails on a cluster that lacks its definition.

Usage: deploy/kubernetes/generate.py [--replicas N] [--check]
  --replicas N  dungeond replicas (StatefulSet and nginx upstream), default 2
  --check       exit 1 if a file differs from what would be written
Python 3 standard library only.
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUT = os.path.join(ROOT, "deploy", "kubernetes", "dungeond.yaml")
MONITORING_OUT = os.path.join(ROOT, "deploy", "kubernetes", "dungeond-monitoring.yaml")
PORT = 8080
# Probes and the scraper use a listener of their own (health_listen), so a
# flood of API clients cannot make the kubelet restart a busy replica.
HEALTH_PORT = 8081
HEADLESS = "dungeond-replicas"
SECRETS_DIR = "/run/secrets/dungeond"
CONFIG_DIR = "/etc/dungeond/k8s"
UID = 10001  # the Containerfile's dungeond user
NGINX_UID = 101  # the nginx user of the official nginx image
NGINX_IMAGE = "docker.io/library/nginx:1.28"
PRESTOP_SLEEP_S = 5
# The namespace of the Prometheus that scrapes health_listen's /metrics:
# the NetworkPolicy admits it (and the kubelet) to the health port.
SCRAPER_NAMESPACE = "monitoring"
# Start-up: the daemon loads its room sets and builds their pattern databases
# before it listens (under a second for the shipped sets); the liveness probe
# waits until the startup probe has passed once, within this many seconds.
STARTUP_S = 30
# nginx starts only once every replica's name resolves (run-nginx.sh), which
# takes as long as the slowest replica's scheduling and image pull.
NGINX_STARTUP_S = 300
SCRAPE_INTERVAL = "15s"


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return f.read()


def version():
    match = re.search(r"version\s*:\s*'([^']+)'", read("meson.build"))
    if not match:
        sys.exit("generate.py: no version in meson.build")
    return match.group(1)


def replica_names(replicas):
    return [f"dungeond-{i}.{HEADLESS}:{PORT}" for i in range(replicas)]


def k8s_site(site, replicas):
    """The shipped site with its upstream servers (the loopback addresses
    the test replaces by its daemons' ports) set to the replicas' names."""
    servers = list(re.finditer(r"^(\s*)server\s+127\.0\.0\.1:\d+(.*)$", site, re.M))
    if len(servers) < 2:
        sys.exit("generate.py: deploy/nginx/dungeond.conf has no loopback upstream servers")
    indent, tail = servers[0].group(1), servers[0].group(2)
    lines = "\n".join(f"{indent}server {name}{tail}" for name in replica_names(replicas))
    head = ("# deploy/nginx/dungeond.conf with the upstream servers set to the dungeond\n"
            "# StatefulSet's replicas (deploy/kubernetes/generate.py writes this).\n")
    return head + site[:servers[0].start()] + lines + site[servers[-1].end():]


def dungeond_config():
    config = json.loads(read("config", "dungeond.json"))
    config["$comment"] = ("dungeond configuration in Kubernetes (deploy/kubernetes/generate.py "
                          "writes it from config/dungeond.json); keys in docs/config.md")
    config["listen"] = f"0.0.0.0:{PORT}"
    config["health_listen"] = f"0.0.0.0:{HEALTH_PORT}"
    config["roomsets_dir"] = "/etc/dungeond/roomsets"
    # The image ships the example content tables there (Containerfile).
    config["tables_dir"] = "/etc/dungeond/tables"
    config["auth_tokens_file"] = f"{SECRETS_DIR}/auth_tokens"
    config["lobby_seed_secret_file"] = f"{SECRETS_DIR}/lobby_seed_secret"
    # Every connection comes from nginx: a per-IP limit would cap nginx.
    config["limits"]["connections_per_ip_max"] = 0
    return json.dumps(config, indent=2) + "\n"


def block(text, indent):
    """`text` as the body of a YAML literal block scalar."""
    pad = " " * indent
    return "\n".join(pad + line if line else "" for line in text.rstrip("\n").split("\n"))


def render(replicas):
    site = k8s_site(read("deploy", "nginx", "dungeond.conf"), replicas)
    image = f"dungeond:{version()}"
    drain_s = json.loads(read("config", "dungeond.json"))["limits"]["drain_timeout_ms"] // 1000
    grace = PRESTOP_SLEEP_S + drain_s + 15
    return f"""\
# dungeond on Kubernetes (docs/deploy.md). GENERATED by
# deploy/kubernetes/generate.py from deploy/nginx/dungeond.conf,
# deploy/kubernetes/nginx.conf, deploy/kubernetes/run-nginx.sh and
# config/dungeond.json: edit those and run it; tests/deploy/kubernetes_check.py
# fails when this file is stale.
#
# Game servers talk to the Service "dungeond": nginx, which sends every request
# about one lobby (/v1/lobbies/{{lobby}}/...) to the replica that holds it (a
# consistent hash on the lobby id) and spreads all other requests. The
# replicas are a StatefulSet so that each has a stable name
# (dungeond-0.{HEADLESS}, ...) for nginx's upstream list; nginx re-resolves
# the names and reloads when a pod comes back with a new address.
# No HorizontalPodAutoscaler: nginx only sends traffic to the replicas its
# upstream lists, so scale with `generate.py --replicas N` and apply (about
# 1/N of the lobbies move; those lobbies start over, as after a restart).
#
# Before applying, build and push the image (Containerfile; tag {image}) and
# create the Secret with the bearer tokens and the lobby seed secret, the
# same for every replica so that they agree on lobby seeds:
#   kubectl create secret generic dungeond-secrets \\
#     --from-file=auth_tokens=./auth_tokens \\
#     --from-literal=lobby_seed_secret="$(openssl rand -hex 16)"
apiVersion: v1
kind: ConfigMap
metadata:
  name: dungeond-config
  labels: {{app: dungeond}}
data:
  dungeond.json: |
{block(dungeond_config(), 4)}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: dungeond-nginx
  labels: {{app: dungeond-nginx}}
data:
  nginx.conf: |
{block(read("deploy", "kubernetes", "nginx.conf"), 4)}
  dungeond.conf: |
{block(site, 4)}
  run-nginx.sh: |
{block(read("deploy", "kubernetes", "run-nginx.sh"), 4)}
---
# Headless: gives each replica a DNS name, dungeond-N.{HEADLESS}, as soon as
# it has an address (nginx needs the names to resolve to start).
apiVersion: v1
kind: Service
metadata:
  name: {HEADLESS}
  labels: {{app: dungeond}}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {{app: dungeond}}
  ports:
    - {{name: http, port: {PORT}, targetPort: http}}
    # The health listener, for the ServiceMonitor (dungeond-monitoring.yaml).
    # As the Service publishes replicas that are not ready, draining ones
    # are still scraped (the DungeondDrainStuck alert needs them).
    - {{name: metrics, port: {HEALTH_PORT}, targetPort: health}}
---
# Who may reach the replicas: the API port only from the nginx pods, the
# health port (probes, /metrics) only from the scraper's namespace
# ("{SCRAPER_NAMESPACE}"; change it to yours). The kubelet's probes come from
# the pod's own node, which a NetworkPolicy always admits. Without it anyone
# in the cluster could hold the health port's connections and put a replica
# in a restart loop (each restart loses its lobbies). Needs a network plugin
# that enforces NetworkPolicy.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: dungeond
  labels: {{app: dungeond}}
spec:
  podSelector:
    matchLabels: {{app: dungeond}}
  policyTypes: [Ingress]
  ingress:
    - from:
        - podSelector:
            matchLabels: {{app: dungeond-nginx}}
      ports:
        - {{protocol: TCP, port: {PORT}}}
    - from:
        - namespaceSelector:
            matchLabels: {{kubernetes.io/metadata.name: {SCRAPER_NAMESPACE}}}
      ports:
        - {{protocol: TCP, port: {HEALTH_PORT}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: dungeond
  labels: {{app: dungeond}}
spec:
  serviceName: {HEADLESS}
  replicas: {replicas}
  podManagementPolicy: Parallel
  selector:
    matchLabels: {{app: dungeond}}
  template:
    metadata:
      labels: {{app: dungeond}}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: "{HEALTH_PORT}"
        prometheus.io/path: /metrics
    spec:
      automountServiceAccountToken: false
      # preStop sleep + drain_timeout_ms ({drain_s} s) + margin.
      terminationGracePeriodSeconds: {grace}
      securityContext:
        runAsNonRoot: true
        runAsUser: {UID}
        runAsGroup: {UID}
        # The Secret's files are group-readable (0440) by this group only:
        # the daemon refuses token files that other users may read.
        fsGroup: {UID}
        seccompProfile: {{type: RuntimeDefault}}
      containers:
        - name: dungeond
          image: {image}
          args: ["--config", "{CONFIG_DIR}/dungeond.json"]
          ports:
            - {{name: http, containerPort: {PORT}}}
            - {{name: health, containerPort: {HEALTH_PORT}}}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: {{drop: [ALL]}}
            seccompProfile: {{type: RuntimeDefault}}
          resources:
            requests: {{cpu: "1", memory: 256Mi}}
            limits: {{cpu: "2", memory: 1Gi}}
          # The health listener closes idle keep-alives after
          # limits.health_idle_timeout_ms and caps each address, so a probe
          # waits at most about that long for a slot; the timeouts leave room.
          startupProbe:
            httpGet: {{path: /livez, port: health}}
            periodSeconds: 1
            timeoutSeconds: 5
            failureThreshold: {STARTUP_S}
          livenessProbe:
            httpGet: {{path: /livez, port: health}}
            periodSeconds: 10
            timeoutSeconds: 5
            failureThreshold: 3
          readinessProbe:
            # 503 while draining after SIGTERM.
            httpGet: {{path: /readyz, port: health}}
            periodSeconds: 2
            timeoutSeconds: 5
          lifecycle:
            # Kubernetes removes the pod from endpoints while SIGTERM is
            # already on its way; the sleep lets that spread first. The
            # daemon keeps accepting while it drains, so late requests are
            # still answered (or get 503 + Retry-After once queued work is
            # refused), and nginx moves on to the next replica.
            preStop:
              exec: {{command: ["/bin/sleep", "{PRESTOP_SLEEP_S}"]}}
          volumeMounts:
            - {{name: config, mountPath: {CONFIG_DIR}, readOnly: true}}
            - {{name: secrets, mountPath: {SECRETS_DIR}, readOnly: true}}
      volumes:
        - name: config
          configMap: {{name: dungeond-config}}
        - name: secrets
          secret:
            secretName: dungeond-secrets
            # 0440 in octal, written in decimal: YAML 1.1 parsers (kubectl)
            # read a leading 0 as octal, YAML 1.2 ones as decimal.
            defaultMode: 288
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: dungeond
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {{app: dungeond}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: dungeond-nginx
  labels: {{app: dungeond-nginx}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: dungeond-nginx}}
  template:
    metadata:
      labels: {{app: dungeond-nginx}}
    spec:
      automountServiceAccountToken: false
      terminationGracePeriodSeconds: 70
      securityContext:
        runAsNonRoot: true
        runAsUser: {NGINX_UID}
        runAsGroup: {NGINX_UID}
        seccompProfile: {{type: RuntimeDefault}}
      containers:
        - name: nginx
          # Any open-source nginx: the site uses nothing newer than Debian
          # 12's nginx 1.22, which the test suite runs it with.
          image: {NGINX_IMAGE}
          command: ["/bin/sh", "/etc/nginx/dungeond/run-nginx.sh"]
          ports:
            - {{name: http, containerPort: {PORT}}}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: {{drop: [ALL]}}
            seccompProfile: {{type: RuntimeDefault}}
          resources:
            requests: {{cpu: 100m, memory: 64Mi}}
            limits: {{cpu: "1", memory: 256Mi}}
          startupProbe:
            tcpSocket: {{port: http}}
            periodSeconds: 2
            failureThreshold: {NGINX_STARTUP_S // 2}
          readinessProbe:
            tcpSocket: {{port: http}}
            periodSeconds: 2
          livenessProbe:
            tcpSocket: {{port: http}}
            periodSeconds: 10
          lifecycle:
            preStop:
              exec: {{command: ["/bin/sleep", "{PRESTOP_SLEEP_S}"]}}
          volumeMounts:
            - {{name: nginx, mountPath: /etc/nginx/dungeond, readOnly: true}}
            - {{name: tmp, mountPath: /tmp}}
      volumes:
        - name: nginx
          configMap: {{name: dungeond-nginx}}
        - name: tmp
          emptyDir: {{}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: dungeond-nginx
spec:
  maxUnavailable: 1
  selector:
    matchLabels: {{app: dungeond-nginx}}
---
# What game servers use: nginx in front of the replicas.
apiVersion: v1
kind: Service
metadata:
  name: dungeond
  labels: {{app: dungeond-nginx}}
spec:
  selector: {{app: dungeond-nginx}}
  ports:
    - {{name: http, port: {PORT}, targetPort: http}}
"""


def render_monitoring():
    rules = read("deploy", "monitoring", "dungeond-rules.yaml")
    start = rules.find("\ngroups:\n")
    if start < 0:
        sys.exit("generate.py: deploy/monitoring/dungeond-rules.yaml has no top-level groups:")
    return f"""\
# dungeond's objects for the Prometheus Operator (docs/monitoring.md).
# GENERATED by deploy/kubernetes/generate.py; the rules are
# deploy/monitoring/dungeond-rules.yaml, where they are unit-tested.
# Apply after dungeond.yaml on a cluster that runs the operator (its
# ServiceMonitor and PrometheusRule definitions installed); add the labels
# your Prometheus object selects (serviceMonitorSelector, ruleSelector).
#
# The ServiceMonitor scrapes every replica's health listener through the
# headless Service {HEADLESS}; jobLabel makes the job "dungeond".
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: dungeond
  labels: {{app: dungeond}}
spec:
  jobLabel: app
  selector:
    matchLabels: {{app: dungeond}}
  endpoints:
    - port: metrics
      path: /metrics
      interval: {SCRAPE_INTERVAL}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: dungeond
  labels: {{app: dungeond}}
spec:
{block(rules[start + 1:], 2)}
"""


def outputs(replicas):
    return [(OUT, render(replicas)), (MONITORING_OUT, render_monitoring())]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.replicas <= 1000:
        sys.exit("generate.py: --replicas must be an integer from 1 to 1000")
    stale = 0
    for path, text in outputs(args.replicas):
        if args.check:
            with open(path) as f:
                if f.read() != text:
                    print(f"{path} is stale: run deploy/kubernetes/generate.py", file=sys.stderr)
                    stale = 1
            continue
        with open(path, "w") as f:
            f.write(text)
    return stale


if __name__ == "__main__":
    sys.exit(main())
