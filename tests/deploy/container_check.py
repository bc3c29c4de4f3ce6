#!/usr/bin/env python3
"""The Containerfile, checked without a container engine (none runs in CI;
docs/deploy.md says how it was built with buildah):

1. every COPY source exists, and the build stage's dev packages provide
   every pkg-config dependency() of the daemon's meson.build files;
2. the build stage's RUN (meson setup, compile, install, config and room
   sets) runs here, in a clean build directory, with /build and /out mapped
   to temporary directories;
3. the runtime stage's package list is exactly the Debian packages of the
   shared libraries the installed dungeond links (readelf NEEDED), libc aside;
4. the installed configuration and room sets pass `dungeond --check-config`,
   as the runtime stage's own RUN does.

Usage: container_check.py
Prints TAP. Needs dpkg, readelf and pkg-config (Debian 12).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
STATE = {}


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def stages():
    """[(name, [(instruction, argument text)])] with continuation lines joined."""
    with open(os.path.join(ROOT, "Containerfile")) as f:
        text = re.sub(r"\\\n", " ", f.read())
    result = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            result.append((rest.split()[-1], []))
        result[-1][1].append((word.upper(), rest.strip()))
    return result


def stage(name):
    return dict(stages())[name]


def apt_packages(instructions):
    for word, rest in instructions:
        if word == "RUN" and "apt-get install" in rest:
            words = rest.split("apt-get install", 1)[1].split("&&")[0].split()
            return {w for w in words if not w.startswith("-")}
    raise AssertionError("no apt-get install in the stage")


def package_of(path):
    out = subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True,
                         text=True)
    if out.returncode != 0:  # usrmerge: dpkg knows /lib, the loader says /usr/lib
        alt = re.sub(r"^/usr/lib/", "/lib/", os.path.realpath(path))
        out = subprocess.run(["dpkg", "-S", alt], capture_output=True, text=True)
    check(out.returncode == 0, f"no Debian package owns {path}")
    return out.stdout.split(":")[0]


def sources_and_build_packages():
    for name, instructions in stages():
        for word, rest in instructions:
            if word == "COPY" and "--from=" not in rest:
                for source in rest.split()[:-1]:
                    check(os.path.exists(os.path.join(ROOT, source)), f"COPY {source}: absent")
    meson_files = [os.path.join(ROOT, "meson.build")] + glob.glob(
        os.path.join(ROOT, "src", "**", "meson.build"), recursive=True)
    deps = set()
    for path in meson_files:
        with open(path) as f:
            deps |= set(re.findall(r"\bdependency\(\s*'([^']+)'", f.read()))
    deps.discard("threads")  # the C library's
    packages = apt_packages(stage("build"))
    for dep in sorted(deps):
        pc = subprocess.run(["pkg-config", "--path", dep], capture_output=True, text=True)
        check(pc.returncode == 0, f"pkg-config knows no {dep}")
        owner = package_of(pc.stdout.strip())
        check(owner in packages, f"dependency('{dep}') comes from {owner}, "
                                 f"not in the build stage's packages {sorted(packages)}")


def build_stage_runs():
    work = tempfile.mkdtemp(prefix="dungeond-container-")
    STATE["work"] = work
    build, out = os.path.join(work, "build"), os.path.join(work, "out")
    instructions = stage("build")
    check(("WORKDIR", "/src") in instructions, "the build stage does not work in /src")
    runs = [rest for word, rest in instructions[instructions.index(("WORKDIR", "/src")):]
            if word == "RUN"]
    check(runs, "no RUN after WORKDIR /src")
    for command in runs:
        command = re.sub(r"(?<![\w/])/build\b", build, command)
        command = re.sub(r"(?<![\w/])/out\b", out, command)
        run = subprocess.run(["nice", "sh", "-ec", command], cwd=ROOT, capture_output=True,
                             text=True, timeout=1200)
        check(run.returncode == 0, f"{command[:200]}…\n{run.stdout[-1500:]}{run.stderr[-1500:]}")
    STATE["out"] = out
    daemon = os.path.join(out, "usr", "local", "bin", "dungeond")
    check(os.access(daemon, os.X_OK), "meson install put no dungeond in /usr/local/bin")
    STATE["daemon"] = daemon


def runtime_packages():
    check("daemon" in STATE, "the build stage did not run")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                        subprocess.run(["readelf", "-d", STATE["daemon"]], capture_output=True,
                                       text=True, check=True).stdout)
    ldd = subprocess.run(["ldd", STATE["daemon"]], capture_output=True, text=True,
                         check=True).stdout
    paths = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
    linked = set()
    for lib in needed:
        check(lib in paths, f"ldd does not resolve {lib}")
        linked.add(package_of(paths[lib]))
    linked.discard("libc6")  # in every Debian image
    listed = apt_packages(stage("runtime"))
    check(listed == linked, f"runtime stage installs {sorted(listed)}, "
                            f"dungeond links {sorted(linked)} (besides libc6)")


def installed_config_loads():
    check("out" in STATE, "the build stage did not run")
    etc = os.path.join(STATE["out"], "etc", "dungeond")
    with open(os.path.join(etc, "dungeond.json")) as f:
        config = json.load(f)
    check(config["roomsets_dir"] == "/etc/dungeond/roomsets", config["roomsets_dir"])
    check(config["listen"].startswith("0.0.0.0:"), config["listen"])
    # The image's absolute paths, mapped into the install tree.
    config["roomsets_dir"] = os.path.join(etc, "roomsets")
    path = os.path.join(STATE["work"], "check.json")
    with open(path, "w") as f:
        json.dump(config, f)
    run = subprocess.run([STATE["daemon"], "--check-config", "--config", path],
                         capture_output=True, text=True, timeout=60)
    check(run.returncode == 0, run.stderr)
    shipped = sorted(os.path.basename(p) for p in glob.glob(
        os.path.join(ROOT, "config", "roomsets", "*.json")))
    loaded = sorted(r["name"] + ".json" for r in json.loads(run.stdout)["roomsets"])
    check(loaded == shipped, f"room sets {loaded}, shipped {shipped}")


def main():
    tests = [
        ("COPY sources exist; build packages provide every dependency()",
         sources_and_build_packages),
        ("the build stage's commands run in a clean build directory", build_stage_runs),
        ("runtime packages are exactly the linked libraries' packages", runtime_packages),
        ("the installed configuration and room sets pass --check-config",
         installed_config_loads),
    ]
    print(f"1..{len(tests)}", flush=True)
    failed = 0
    try:
        for number, (name, fn) in enumerate(tests, 1):
            try:
                fn()
                print(f"ok {number} - {name}", flush=True)
            except Exception as e:  # a failed check or an unexpected error
                failed += 1
                print(f"not ok {number} - {name}", flush=True)
                for line in str(e).splitlines() or [repr(e)]:
                    print(f"# {line}", flush=True)
    finally:
        if "work" in STATE:
            shutil.rmtree(STATE["work"], ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
