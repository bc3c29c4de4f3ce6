#!/usr/bin/env python3
"""The README's examples, run as a reader would run them (issue 23 item 2,
issue 25 item 6): every `dungeon ...` and `curl ...` line of its sh blocks,
verbatim, with `dungeon` on PATH being the build's and `localhost:8080`
being a test daemon's free port (config/dungeond.json as shipped). Each must
succeed (exit 0; HTTP 2xx unless the README shows another status), and
produce what the README says:

- a `# → TEXT` comment under a command: TEXT's pieces between `...` appear
  in the output, in order, and a leading 3-digit number is the HTTP status;
- `$ command` in a text block: the lines under it are exactly its output;
- JSON answers are levels (or sets, tables, stats); `> FILE.svg` is an SVG,
  `> FILE.tmj` a Tiled map; `-i ... /start` shows `X-Pregen`;
- the CLI's `--players ... --profile` line makes the bytes the daemon's
  `players` example makes for the same seed (up to the daemon's signed
  identity at the end);
- the nonlinear ASCII example is a real dungeon (several rooms, the exit
  away from the entrance);
- no algorithm's `source`, in `GET /v1/algorithms` or `dungeon algorithms
  --json`, names a file that is not in the repository.

`dungeon bench` lines are listed as skipped: they are benchmarks of minutes.

Usage: readme_examples.py PATH/TO/dungeond PATH/TO/dungeon SOURCE_ROOT
Prints TAP; Python 3 standard library and curl.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check  # noqa: E402

COMMAND = re.compile(r"^(dungeon|curl)\s")
STATUS = "HTTP-STATUS:"


def examples(readme):
    """(kind, command, expected) for each example: kind 'sh' or 'prompt';
    expected the text of its `# →` comment, or the lines under `$ ...`."""
    found, block, lines = [], None, readme.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            block = None if block is not None else line[3:].strip()
            i += 1
            continue
        if block == "sh":
            command = line.strip()
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            if COMMAND.match(command):
                command = re.sub(r"\s{2,}#.*$", "", command)
                expected = None
                if i + 1 < len(lines) and lines[i + 1].startswith("# →"):
                    expected = lines[i + 1][len("# →"):].strip()
                    while i + 2 < len(lines) and re.match(r"^#\s{3,}\S", lines[i + 2]):
                        expected += lines[i + 2][1:].strip()
                        i += 1
                    i += 1
                found.append(("sh", command, expected))
        elif block == "text" and line.startswith("$ "):
            command, output = line[2:].strip(), []
            while i + 1 < len(lines) and not lines[i + 1].startswith(("$ ", "```")):
                i += 1
                output.append(lines[i])
            found.append(("prompt", command, "\n".join(output)))
        i += 1
    return found


class Runner:
    """Runs README lines in a scratch directory that looks like a checkout
    (config/, tests/ and docs/ linked in), with the build's dungeon on PATH."""

    def __init__(self, dungeon, root, port):
        self.dir = tempfile.mkdtemp(prefix="readme-examples-")
        os.mkdir(os.path.join(self.dir, "bin"))
        os.symlink(dungeon, os.path.join(self.dir, "bin", "dungeon"))
        for name in ("config", "tests", "docs"):
            os.symlink(os.path.join(root, name), os.path.join(self.dir, name))
        self.env = dict(os.environ, PATH=os.path.join(self.dir, "bin") + ":" + os.environ["PATH"])
        self.env.pop("DUNGEON_ROOMSETS", None)
        self.port = port

    def run(self, command):
        """(exit status, stdout bytes, stderr text, HTTP status or None)."""
        line = command.replace("localhost:8080", f"127.0.0.1:{self.port}")
        if line.startswith("curl "):
            line = f"curl -w '%{{stderr}}{STATUS}%{{http_code}}\\n' " + line[5:]
        done = subprocess.run(["sh", "-c", line], cwd=self.dir, env=self.env,
                              capture_output=True, timeout=300)
        err = done.stderr.decode(errors="replace")
        match = re.search(STATUS + r"(\d{3})", err)
        return done.returncode, done.stdout, err, int(match.group(1)) if match else None

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def pieces_in_order(text, expected):
    """Checks that each piece of `expected` between `...` is in `text`, in
    order; returns the leading HTTP status the comment names, or None."""
    status = None
    match = re.match(r"^(\d{3})\s+(.*)$", expected)
    if match:
        status, expected = int(match.group(1)), match.group(2)
    at = 0
    for piece in (p.strip() for p in expected.split("...")):
        if not piece:
            continue
        found = text.find(piece, at)
        check(found >= 0, f"the README says {piece!r}; the output (from {at}) is "
                          f"{text[at:at + 400]!r}")
        at = found + len(piece)
    return status


def check_output(command, status, out, err, http, expected, runner):
    """What the README says of one sh line."""
    text = out.decode(errors="replace")
    check(status == 0, f"exit {status}: {err[-400:]}")
    want_http = pieces_in_order(text, expected) if expected else None
    if command.startswith("curl "):
        want = want_http or 200
        check(http == want if want_http or http is None else 200 <= http < 300,
              f"HTTP {http}, the README says {want}: {text[:300]}")
    redirect = re.search(r">\s*(\S+)$", command)
    if redirect:
        with open(os.path.join(runner.dir, redirect.group(1)), "rb") as f:
            saved = f.read().decode(errors="replace")
        if redirect.group(1).endswith(".svg"):
            check("<svg" in saved[:400] and saved.rstrip().endswith("</svg>"), "not an SVG")
        elif redirect.group(1).endswith(".tmj"):
            tmj = json.loads(saved)
            check(tmj.get("type") == "map" and tmj.get("layers"), "not a Tiled map")
        return
    if " -i " in command and command.endswith("/start"):
        check(re.search(r"(?im)^x-pregen: (hit|wait|miss)\r?$", text), f"no X-Pregen: {text[:300]}")
        return
    if re.search(r"--format[ =](ascii|svg|tiled)|--help|^dungeon check|Accept: text/plain", command):
        check(text.strip(), "no output")
        return
    if command.startswith("dungeon catalogue --check"):
        check(re.search(r"^\d+ cases, 0 differ$", text, re.M), text[-300:])
        return
    if text.startswith("{") or text.startswith("["):
        doc = json.loads(text)
        if "/v1/levels" in command and http == 200 or command.startswith("dungeon generate"):
            check(doc.get("format") in ("dungeond.level/1", "dungeond.levelset/1"),
                  f"not a level: {text[:200]}")
            if doc.get("format") == "dungeond.level/1" and "targets" in doc and not expected:
                check(doc["targets"]["met"], f"targets not met: {doc['targets']}")
            if doc.get("format") == "dungeond.levelset/1":
                for floor in doc["floors"]:
                    targets = floor["level"].get("targets")
                    check(targets is None or targets["met"], f"a floor misses: {targets}")


def run_examples(runner, found, tap):
    outputs = {}
    for kind, command, expected in found:
        name = f"README: {command}"
        if kind == "sh" and re.match(r"^dungeon bench\b", command):
            tap.number += 1
            print(f"ok {tap.number} - {name} # SKIP a benchmark of minutes", flush=True)
            continue
        # `[--json]`-style optional arguments: run without them.
        command_run = re.sub(r"\s\[--[^\]]*\]", "", command)

        def one(kind=kind, command_run=command_run, expected=expected):
            status, out, err, http = runner.run(command_run)
            outputs[command_run] = out
            if kind == "prompt":
                shown = (out.decode() + err).rstrip("\n")
                check(shown == expected, f"prints {shown!r}, the README shows {expected!r}")
                check(status == 2, f"exit {status}; bad arguments exit 2")
            else:
                check_output(command_run, status, out, err, http, expected, runner)
        tap.report(name, one)
    return outputs


def profile_pair(outputs, tap):
    """The CLI's --players/--profile example against the daemon's players one."""
    def same_bytes():
        cli = [(c, o) for c, o in outputs.items() if c.startswith("dungeon ") and "--players" in c]
        http = [(c, o) for c, o in outputs.items() if c.startswith("curl ") and '"players":[' in c]
        check(cli and http, "the README has no --players/--profile line or no players curl line")
        for command, out in cli:
            seed = re.search(r"--seed (\d+)", command).group(1)
            players = re.search(r"--players '([^']*)'", command).group(1)
            twin = [o for c, o in http if f'"seed":{seed},' in c and f'"players":{players}' in c]
            check(twin, f"no curl line with seed {seed} and players {players}")
            # The daemon's level ends with its identity (level_id,
            # level_hash), which needs the daemon's key; the bytes before
            # it are the CLI's.
            body = twin[0]
            cut = body[:body.rindex(b',"level_id":')] + b"}"
            check(out.rstrip(b"\n") == cut,
                  f"the CLI's profile-derived level ({len(out)} bytes) differs from the "
                  f"daemon's ({len(cut)} bytes)")
    tap.report("README: dungeon --players --profile makes the daemon's bytes", same_bytes)


def nonlinear_is_a_dungeon(runner, readme, tap):
    def real():
        match = re.search(r"dungeon generate --algorithm nonlinear --seed (\d+) --format ascii$",
                          readme, re.M)
        check(match, "the README has no nonlinear ASCII example")
        status, out, err, _ = runner.run(f"dungeon generate --quiet --algorithm nonlinear "
                                         f"--seed {match.group(1)}")
        check(status == 0, err)
        level = json.loads(out)
        rooms, path = level["metrics"]["rooms"], level["placement"]["entrance_to_exit"]
        check(rooms >= 6, f"{rooms} rooms: not much of a dungeon")
        check(path >= 20, f"the exit is {path} from the entrance")
    tap.report("README: the nonlinear example is a real dungeon (6+ rooms, exit 20+ away)", real)


def sources_in_repository(runner, root, daemon, tap):
    def named_files_exist():
        _, _, body = daemon.request("GET", "/v1/algorithms")
        over_http = json.loads(body)
        status, out, err, _ = runner.run("dungeon algorithms --json")
        check(status == 0, err)
        for table in (over_http, json.loads(out)):
            items = table["algorithms"] if isinstance(table, dict) else table
            check(len(items) >= 4, f"{len(items)} algorithms")
            for algorithm in items:
                source = algorithm["source"]
                check(source.strip(), f"{algorithm['name']}: empty source")
                for path in re.findall(r"[\w.-]*/[\w./-]+|[\w-]+\.(?:md|txt|c|h|json|pdf)\b",
                                       source):
                    check(os.path.exists(os.path.join(root, path)),
                          f"{algorithm['name']}: source names {path}, not in the repository")
    tap.report("no algorithm's source names a file outside the repository", named_files_exist)


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    dungeon, root = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    with open(os.path.join(root, "README.md")) as f:
        readme = f.read()
    found = examples(readme)
    print(f"1..{len(found) + 3}", flush=True)
    tap = harness.Tap()
    if len(found) < 30:
        tap.fail("the README's examples were found", [f"only {len(found)}"])
    daemon = harness.Daemon()
    runner = Runner(dungeon, root, daemon.port)
    try:
        outputs = run_examples(runner, found, tap)
        profile_pair(outputs, tap)
        nonlinear_is_a_dungeon(runner, readme, tap)
        sources_in_repository(runner, root, daemon, tap)
    finally:
        runner.close()
        if daemon.stop() != 0 or daemon.sanitizer_reports():
            tap.fail("the daemon exits 0 without sanitizer reports")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
