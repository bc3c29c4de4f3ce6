#!/usr/bin/env python3
"""Scale-out test: two dungeond replicas behind a real
nginx running the shipped deploy/nginx/dungeond.conf, with only its ports
changed. A lobby's joins and its start must reach the same replica (hash on
the lobby id), so starts through nginx are hits; every other request spreads
over both replicas; a replica that stops takes only its own lobbies with it.

Usage: nginx_http.py PATH/TO/dungeond PATH/TO/deploy/nginx/dungeond.conf
       nginx_http.py PATH/TO/dungeond PATH/TO/deploy/kubernetes/dungeond.yaml
(the second runs the site embedded in the Kubernetes bundle's ConfigMap)
Prints TAP. Python 3 standard library only; reuses dungeond_http.py's Daemon.
nginx comes from deploy/install-deps.sh (Debian's package, /usr/sbin/nginx).
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check  # noqa: E402

LOBBIES = 40


def shipped_site(path):
    """The nginx site to run: deploy/nginx/dungeond.conf itself, or the copy
    the Kubernetes bundle embeds in a ConfigMap (deploy/kubernetes/*.yaml,
    read with PyYAML: python3-yaml), whose servers are the replicas' names."""
    if not path.endswith((".yaml", ".yml")):
        with open(path) as f:
            return f.read()
    import yaml
    with open(path) as f:
        for doc in yaml.safe_load_all(f):
            if doc and doc.get("kind") == "ConfigMap" and "dungeond.conf" in doc.get("data", {}):
                return doc["data"]["dungeond.conf"]
    raise RuntimeError(f"no ConfigMap with dungeond.conf in {path}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """nginx in the foreground, its whole prefix in a temporary directory."""

    def __init__(self, shipped_conf, upstream_ports):
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        if not os.path.exists(nginx):
            raise RuntimeError("nginx not found: run deploy/install-deps.sh")
        self.dir = tempfile.mkdtemp(prefix="dungeond-nginx-")
        os.chmod(self.dir, 0o755)
        self.port = free_port()
        site = shipped_site(shipped_conf)
        # The upstream servers, in order, become the test's daemons.
        servers = re.findall(r"^\s*server\s+([^\s;{]+:\d+)", site, re.M)
        check(len(servers) == len(upstream_ports),
              f"{len(servers)} upstream servers in the shipped config, "
              f"expected {len(upstream_ports)}: {servers}")
        for shipped, port in zip(servers, upstream_ports):
            site = re.sub(rf"(\bserver\s+){re.escape(shipped)}(?=[\s;])",
                          rf"\g<1>127.0.0.1:{port}", site)
        check("listen 8080;" in site, "listen 8080 not in the shipped config")
        site = site.replace("listen 8080;", f"listen 127.0.0.1:{self.port};")
        with open(os.path.join(self.dir, "site.conf"), "w") as f:
            f.write(site)
        temp = {name: os.path.join(self.dir, name)
                for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
        for path in temp.values():
            os.makedirs(path)
        main = "\n".join([
            "user root;" if os.geteuid() == 0 else "",
            "worker_processes 1;",
            f"pid {self.dir}/nginx.pid;",
            f"error_log {self.dir}/error.log warn;",
            "events { worker_connections 512; }",
            "http {",
            "  access_log off;",
            f"  client_body_temp_path {temp['client_body']};",
            f"  proxy_temp_path {temp['proxy']};",
            f"  fastcgi_temp_path {temp['fastcgi']};",
            f"  uwsgi_temp_path {temp['uwsgi']};",
            f"  scgi_temp_path {temp['scgi']};",
            f"  include {self.dir}/site.conf;",
            "}", ""])
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(main)
        test = subprocess.run([nginx, "-t", "-p", self.dir, "-c", f"{self.dir}/nginx.conf"],
                              capture_output=True, text=True)
        check(test.returncode == 0, f"nginx -t: {test.stderr}")
        self.proc = subprocess.Popen([nginx, "-p", self.dir, "-c", f"{self.dir}/nginx.conf",
                                      "-g", "daemon off;"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.02)
        raise RuntimeError("nginx did not start: " + self.error_log())

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "error.log")) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def request(self, method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        conn.request(method, path, body=json.dumps(body) if body is not None else None)
        response = conn.getresponse()
        data = response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
        conn.close()
        return response.status, headers, data

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)  # graceful shutdown
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "timeout"
        shutil.rmtree(self.dir, ignore_errors=True)
        return code


def holders(daemons, lobby):
    """Indices of the replicas that know `lobby`."""
    return [i for i, d in enumerate(daemons) if d.request("GET", f"/v1/lobbies/{lobby}")[0] == 200]


def wait_ready(front, lobby, seconds=60):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, _, body = front.request("GET", f"/v1/lobbies/{lobby}")
        if status == 200 and json.loads(body)["pregen"] == "ready":
            return json.loads(body)
        time.sleep(0.01)
    raise AssertionError(f"{lobby} never ready through nginx")


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    shipped = os.path.abspath(sys.argv[2])
    print("1..5", flush=True)
    tap = harness.Tap()
    report = tap.report

    # Replicas share lobby_seed_secret, as deploy/ configures them: without
    # it each process signs level ids with its own random key, and a level
    # made on one replica would carry another level_id than on the other.
    daemons = [harness.Daemon(limits={"lobby_debounce_ms": 20},
                              extra={"lobby_seed_secret": "0f1e2d3c4b5a69788796a5b4c3d2e1f0"})
               for _ in range(2)]
    front = None
    state = {}

    def start_front():
        nonlocal front
        front = Nginx(shipped, [d.port for d in daemons])
        check(front.request("GET", "/livez")[0] == 200, "livez through nginx")

    def lobbies_through_nginx():
        for i in range(LOBBIES):
            for p in range(4):
                status, _, body = front.request("PUT", f"/v1/lobbies/lb{i}/players/p{p}",
                                                {"level": 5 * p + i % 7})
                check(status in (200, 201), f"join lb{i}/p{p}: {status} {body[:200]}")
        placement = {}
        for i in range(LOBBIES):
            found = holders(daemons, f"lb{i}")
            check(len(found) == 1, f"lb{i} is on replicas {found}, not exactly one")
            placement[f"lb{i}"] = found[0]
        counts = [list(placement.values()).count(k) for k in (0, 1)]
        check(min(counts) >= LOBBIES // 5, f"lobbies per replica {counts}: not spread")
        state["placement"] = placement

    def starts_are_hits():
        for i in range(LOBBIES):
            doc = wait_ready(front, f"lb{i}")
            status, headers, body = front.request("POST", f"/v1/lobbies/lb{i}/start")
            check(status == 200 and headers.get("x-pregen") == "hit",
                  f"lb{i} start: {status} {headers.get('x-pregen')}")
            eff = doc["effective"]
            direct = front.request("POST", "/v1/levels", {"algorithm": eff["algorithm"],
                                                          "seed": eff["seed"],
                                                          "params": eff["params"],
                                                          "players": eff["players"]})
            check(direct[0] == 200 and direct[2] == body,
                  f"lb{i}: level through nginx differs from the direct request")
        hits = [d.stats()["lobbies"]["hits"] for d in daemons]
        check(sum(hits) == LOBBIES and min(hits) > 0, f"hits per replica {hits}")

    def interactive_spread():
        before = [d.stats()["requests"]["total"] for d in daemons]
        for seed in range(60):
            status, _, _ = front.request("POST", "/v1/levels", {"algorithm": "classic",
                                                                "seed": seed})
            check(status == 200, f"level {seed}: {status}")
        served = [d.stats()["requests"]["total"] - b for d, b in zip(daemons, before)]
        check(min(served) >= 10, f"interactive requests per replica {served}: not spread")

    def replica_stops():
        # Replica 1 drains and exits; replica 0's lobbies are untouched.
        code = daemons[1].stop()
        check(code == 0, f"replica exit {code}")
        kept = [k for k, v in state["placement"].items() if v == 0]
        for lobby in kept:
            status, headers, _ = front.request("POST", f"/v1/lobbies/{lobby}/start")
            check(status == 200 and headers.get("x-pregen") == "hit",
                  f"{lobby} after the other replica stopped: {status} {headers.get('x-pregen')}")
        # New lobbies all land on the survivor and still pre-generate.
        for p in range(2):
            front.request("PUT", f"/v1/lobbies/after/players/p{p}", {"level": 3})
        wait_ready(front, "after")
        status, headers, _ = front.request("POST", "/v1/lobbies/after/start")
        check(status == 200 and headers.get("x-pregen") == "hit", f"after: {status} {headers}")

    try:
        report("nginx starts with the shipped config in front of two replicas", start_front)
        if front is not None:
            report("joins through nginx: each lobby lives on exactly one replica, both used",
                   lobbies_through_nginx)
            report("starts through nginx are hits, byte-identical to POST /v1/levels",
                   starts_are_hits)
            report("other requests spread over both replicas", interactive_spread)
            report("one replica stops: the other's lobbies still hit, new lobbies work",
                   replica_stops)
        else:
            for name in ("joins", "starts", "spread", "stop"):
                tap.fail(f"{name}: nginx did not start")
    finally:
        if front is not None:
            code = front.stop()
            if code != 0:
                print(f"# nginx exit {code}", flush=True)
        for d in daemons:
            if d.proc.poll() is None:
                code = d.stop()
                if code != 0:
                    tap.failed += 1
                    print(f"# replica exit {code}", flush=True)
            if d.sanitizer_reports():
                tap.failed += 1
                print("# " + "".join(d.sanitizer_reports()), flush=True)
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
