#!/usr/bin/env python3
"""Repository docs stand alone (issue 14 item 7): README.md, docs/, deploy/,
config/, bench/ and the Containerfile never cite files that exist only on
the development machine (the algorithm source texts under seeds/, the
design and notes documents), every relative link in README.md and docs/
resolves to a file in the repository, every repository path they name
exists, and docs/deploy.md is linked from README.md.

Usage: docs_check.py
Prints TAP. Python 3 standard library only.
"""
import glob
import os
import re
import sys
# The suite's TAP runner (tests/http's harness, standard library only).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
from dungeond_http import run_plan  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
OUTSIDE = re.compile(r"seeds/0\d\d|\bDESIGN\.md|\bNOTES\.md|\bSTYLE\.md|\.\./shared|/work/shared")
SKIP_DIRS = {"node_modules", ".git"}


def text_files(*tops):
    for top in tops:
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for name in filenames:
                full = os.path.join(dirpath, name)
                try:
                    with open(full, encoding="utf-8") as f:
                        f.read(1)
                except (UnicodeDecodeError, OSError):
                    continue
                yield full


def no_outside_citations():
    found = []
    for path in text_files("README.md", "docs", "deploy", "config", "bench", "Containerfile"):
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if OUTSIDE.search(line):
                    found.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()}")
    if found:
        raise AssertionError("cites files outside the repository:\n" + "\n".join(found))


def links_resolve():
    broken = []
    for path in text_files("README.md", "docs"):
        if not path.endswith(".md"):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            file = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
            if not os.path.exists(file):
                broken.append(f"{os.path.relpath(path, ROOT)}: {target}")
    if broken:
        raise AssertionError("links to nothing:\n" + "\n".join(broken))


# A repository path as the docs write it: a top-level folder of this
# repository, then a path. Paths inside a build tree ("build/src/...") or an
# install prefix are preceded by a word, a dot or a slash and are not read.
REPO_PATH = re.compile(
    r"(?<![\w./~-])((?:src|include|tests|bench|deploy|docs|config|clients|examples)/[\w./*-]*[\w*])")


def named_files_exist():
    """Every repository path README.md and docs/ name exists (a glob must
    match something), so a moved file cannot leave the docs behind."""
    missing = []
    for path in text_files("README.md", "docs"):
        if not path.endswith(".md"):
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for named in REPO_PATH.findall(line):
                    # An upper-case part is a placeholder ("corpus/NAME").
                    pattern = re.sub(r"(?<=/)[A-Z_]+(?=/|$)", "*", named)
                    if not glob.glob(os.path.join(ROOT, pattern)):
                        missing.append(f"{os.path.relpath(path, ROOT)}:{number}: {named}")
    if missing:
        raise AssertionError("names files that do not exist:\n" + "\n".join(missing))


# A bare source file name ("server.c", "level_json.c") as README.md writes
# it in its Layout and Development sections.
BARE_SOURCE = re.compile(r"(?<![\w./-])([\w-]+\.(?:c|h|py|sh|mjs|lua))\b")


def named_sources_exist():
    """Every bare source file name README.md gives is a file of the
    repository (by its name, in any folder)."""
    names = set()
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        names.update(filenames)
    missing = []
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            for named in BARE_SOURCE.findall(line):
                if named not in names:
                    missing.append(f"README.md:{number}: {named}")
    if missing:
        raise AssertionError("names source files that do not exist:\n" + "\n".join(missing))


def deploy_doc_linked():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        if "(docs/deploy.md)" not in f.read():
            raise AssertionError("README.md does not link docs/deploy.md")


def main():
    tests = [("docs cite no file outside the repository", no_outside_citations),
             ("relative links in README.md and docs/ resolve", links_resolve),
             ("README.md links docs/deploy.md", deploy_doc_linked),
             ("every repository path README.md and docs/ name exists", named_files_exist),
             ("every source file README.md names exists", named_sources_exist)]
    return run_plan(tests)


if __name__ == "__main__":
    sys.exit(main())
