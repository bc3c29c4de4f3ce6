#!/usr/bin/env python3
"""The shipped systemd unit (deploy/systemd/dungeond.service), checked without
a running systemd (this test runs in containers and CI where PID 1 is not
systemd):

1. `systemd-analyze security --offline=true` rates it below 2.5;
2. LimitNOFILE is well above limits.connections_max of config/dungeond.json;
3. the real daemon, run under strace through a lobby start (idle-priority
   pre-generation and its promotion), a level, a token file and a drain,
   makes only system calls the unit's SystemCallFilter= allows and opens
   sockets only of the families RestrictAddressFamilies= allows, and opens
   no file for writing (ProtectSystem=strict). systemd would kill or refuse
   anything else, so this is the check that the sandbox does not break it.

Usage: systemd_unit.py PATH/TO/dungeond PATH/TO/dungeond.service
Prints TAP; a check whose tool (systemd-analyze, strace) is absent is
skipped, saying so. deploy/install-deps.sh installs both.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check  # noqa: E402

EXPOSURE_MAX = 2.5
NOFILE_MARGIN = 64  # listeners, event loop, timers, log, room-set reads


Skip = harness.SkipTest  # reported as a TAP SKIP


def unit_settings(path):
    """[Service] settings as name -> list of values (repeatable keys)."""
    settings, section = {}, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            name, _, value = line.partition("=")
            if section == "Service":
                settings.setdefault(name.strip(), []).append(value.strip())
    return settings


def exposure(unit):
    tool = shutil.which("systemd-analyze")
    if tool is None:
        raise Skip("systemd-analyze not installed (Debian package systemd)")
    # --offline reads the unit file only; a copy named dungeond.service so the
    # name is the shipped one whatever the path.
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "dungeond.service")
        shutil.copy(unit, copy)
        run = subprocess.run([tool, "security", "--offline=true", "--no-pager", copy],
                             capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for dungeond\.service: ([0-9.]+)", run.stdout)
    check(match, f"no exposure level in: {run.stdout[-500:]} {run.stderr[-500:]}")
    score = float(match.group(1))
    print(f"# systemd-analyze security --offline=true: {score}", flush=True)
    check(score < EXPOSURE_MAX, f"exposure {score} >= {EXPOSURE_MAX}:\n" +
          "\n".join(l for l in run.stdout.splitlines() if "✗" in l))


def nofile(unit):
    settings = unit_settings(unit)
    check("LimitNOFILE" in settings, "no LimitNOFILE")
    limit = int(settings["LimitNOFILE"][-1].split(":")[0])
    with open(os.path.join(HERE, "..", "..", "config", "dungeond.json")) as f:
        connections = json.load(f)["limits"]["connections_max"]
    check(limit >= connections + NOFILE_MARGIN,
          f"LimitNOFILE {limit} < connections_max {connections} + {NOFILE_MARGIN}")


def syscall_groups():
    """Every @group of this systemd, expanded: name -> set of syscalls."""
    out = subprocess.run(["systemd-analyze", "syscall-filter", "--no-pager"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    raw, group = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            group = line.split()[0]
            raw[group] = []
        elif group and line.strip() and not line.strip().startswith("#"):
            raw[group].append(line.strip())

    def expand(name, seen=()):
        result = set()
        for item in raw.get(name, ()):
            if item.startswith("@"):
                if item not in seen:
                    result |= expand(item, seen + (name,))
            else:
                result.add(item)
        return result
    return {name: expand(name) for name in raw}


def allowed_syscalls(settings, groups):
    """SystemCallFilter= lines in order: an allow list, then deny lines."""
    allowed = None
    for value in settings.get("SystemCallFilter", []):
        deny = value.startswith("~")
        names = set()
        for item in value.lstrip("~").split():
            names |= groups[item] if item.startswith("@") else {item}
        if deny:
            allowed = (allowed if allowed is not None else set()) - names
        else:
            allowed = names if allowed is None else allowed | names
    check(allowed is not None, "no SystemCallFilter=")
    return allowed


def daemon_under_strace(daemon, log):
    """The harness's Daemon, started through strace -f."""
    wrapper = os.path.join(os.path.dirname(log), "traced-dungeond")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec strace -f -qq -o {log} {daemon} "$@"\n')
    os.chmod(wrapper, 0o755)
    harness.DAEMON = wrapper
    secrets = os.path.join(os.path.dirname(log), "tokens")
    with open(secrets, "w") as f:
        f.write("a-token-for-the-strace-run\n")
    os.chmod(secrets, 0o600)
    return harness.Daemon(limits={"lobby_debounce_ms": 20},
                          extra={"auth_tokens_file": secrets})


def syscalls_allowed(daemon, unit):
    if shutil.which("strace") is None:
        raise Skip("strace not installed")
    if shutil.which("systemd-analyze") is None:
        raise Skip("systemd-analyze not installed (Debian package systemd)")
    ldd = subprocess.run(["ldd", daemon], capture_output=True, text=True).stdout
    if "libasan" in ldd or "libubsan" in ldd:
        raise Skip("sanitizer build: the runtime's own system calls are not the daemon's")
    probe = subprocess.run(["strace", "-f", "-qq", "-o", "/dev/null", "true"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:  # e.g. a container that forbids ptrace
        raise Skip(f"strace cannot trace here: {probe.stderr.strip()[:200]}")
    settings = unit_settings(unit)
    allowed = allowed_syscalls(settings, syscall_groups())
    families = set(" ".join(settings.get("RestrictAddressFamilies", [])).split())
    check(families and not any(f.startswith("~") for f in families),
          f"RestrictAddressFamilies {families}: expected an allow list")
    work = tempfile.mkdtemp(prefix="dungeond-strace-")
    log = os.path.join(work, "trace")
    try:
        d = daemon_under_strace(daemon, log)
        auth = {"Authorization": "Bearer a-token-for-the-strace-run"}
        try:
            for p in range(3):
                status, _, body = d.request("PUT", f"/v1/lobbies/l1/players/p{p}",
                                            {"level": 4 + p}, auth)
                check(status in (200, 201), f"join: {status} {body[:200]!r}")
            end = time.monotonic() + 120
            while time.monotonic() < end:
                doc = json.loads(d.request("GET", "/v1/lobbies/l1", headers=auth)[2])
                if doc["pregen"] == "ready":
                    break
                time.sleep(0.02)
            status, _, _ = d.request("POST", "/v1/lobbies/l1/start", headers=auth)
            check(status == 200, f"start: {status}")
            # A waiting start promotes the idle-priority job (sched_setscheduler).
            d.request("PUT", "/v1/lobbies/l2", harness.SLOW_LOBBY, auth)
            d.request("PUT", "/v1/lobbies/l2/players/a", {"level": 1}, auth)
            time.sleep(0.1)
            status, headers, _ = d.request("POST", "/v1/lobbies/l2/start", headers=auth)
            print(f"# slow lobby start: {status} {headers.get('x-pregen')}", flush=True)
            for body in ({"algorithm": "classic", "seed": 1},
                         {"algorithm": "landmark", "seed": 2},
                         {"algorithm": "nonlinear", "seed": 3},
                         {"algorithm": "authored", "seed": 4, "params": {"rooms": 40}}):
                status, _, _ = d.request("POST", "/v1/levels", body, auth)
                check(status == 200, f"{body['algorithm']}: {status}")
            check(d.request("GET", "/metrics")[0] == 200, "metrics")
            check(d.request("GET", "/v1/levels")[0] == 401, "no token: 401")
        finally:
            # strace -f forwards nothing: signal the daemon itself.
            children = []
            for task in os.listdir(f"/proc/{d.proc.pid}/task"):
                with open(f"/proc/{d.proc.pid}/task/{task}/children") as f:
                    children += [int(c) for c in f.read().split()]
            for child in children:
                os.kill(child, signal.SIGTERM)
            code = d.stop(sig=None)
        check(code == 0, f"daemon under strace exited {code}")
        used, socket_families, written = set(), set(), []
        with open(log) as f:
            for line in f:
                match = re.match(r"\d+\s+(?:<\.\.\. )?(\w+)\(", line)
                if match:
                    used.add(match.group(1))
                family = re.search(r"\bsocket\((AF_\w+)", line)
                if family:
                    socket_families.add(family.group(1))
                if re.search(r"\bopenat\(.*O_(WRONLY|RDWR|CREAT)", line):
                    written.append(line.strip())
        # execve is strace starting the daemon, before any filter applies.
        used.discard("execve")
        print(f"# {len(used)} distinct system calls traced", flush=True)
        check(len(used) > 20, f"too few system calls traced ({sorted(used)}): strace failed?")
        check(used <= allowed, f"not allowed by SystemCallFilter=: {sorted(used - allowed)}")
        check(socket_families <= families,
              f"socket families {sorted(socket_families - families)} not allowed")
        check(not written, "opened for writing: " + "\n".join(written[:5]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    daemon, unit = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tests = [
        (f"systemd-analyze security rates the unit below {EXPOSURE_MAX}", exposure, unit),
        ("LimitNOFILE is above connections_max", nofile, unit),
        ("the daemon under strace stays inside SystemCallFilter= and "
         "RestrictAddressFamilies=, writes no file", syscalls_allowed, daemon, unit),
    ]
    return harness.run_plan(tests)


if __name__ == "__main__":
    sys.exit(main())
