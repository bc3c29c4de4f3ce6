#!/usr/bin/env python3
"""No C function in src/ or include/ is longer than 80 lines (issue 18,
STYLE.md): a long function is split where it does two jobs.

The files are as clang-format writes them (CI checks), so a function's
definition starts at column 0 with a declaration that has a "(", ends in "{"
and is not a type or an initialiser (its signature may run over several
lines), and ends at the next line that is exactly "}". Its length counts
from the first line of its signature to that "}", as ctags' line and end
fields do (over src/ and include/ both find the same functions over 45
lines, with the same lengths). TAP output.
"""
import os
import re
import sys

LIMIT = 80
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
NOT_A_FUNCTION = re.compile(r"^(typedef|struct|union|enum|static const|const|#)|=\s*\{$")


def functions(path):
    """(name, first line, length) of each function defined in `path`."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or line[0] in "#/}*" or NOT_A_FUNCTION.search(line):
            i += 1
            continue
        # A declaration starts here: read on to the "{" or ";" that ends it.
        head = i
        while i < len(lines) and not lines[i].rstrip().endswith(("{", ";")):
            i += 1
        if i >= len(lines):
            break
        signature = " ".join(lines[head:i + 1])
        # The first name before a "(" that is no __attribute__((...)).
        name = next((n for n in re.findall(r"(\w+)\s*\(", signature) if not n.startswith("__")),
                    None)
        if lines[i].rstrip().endswith("{") and name and "=" not in signature.split("(")[0]:
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            if end < len(lines):
                found.append((name, head + 1, end - head + 1))
                i = end
        i += 1
    return found


def main():
    checked = []
    for top in ("src", "include"):
        for folder, _, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    path = os.path.join(folder, name)
                    checked += [(os.path.relpath(path, ROOT), *f) for f in functions(path)]
    long = [c for c in checked if c[3] > LIMIT]
    print("1..2")
    print(("ok" if len(checked) > 500 else "not ok") +
          f" 1 - the scan finds the functions ({len(checked)})")
    print(("ok" if not long else "not ok") + f" 2 - no function over {LIMIT} lines")
    for path, name, line, length in long:
        message = f"# {path}:{line}: {name} is {length} lines"
        print(message)
        print(message, file=sys.stderr)
    return 1 if long or len(checked) <= 500 else 0


if __name__ == "__main__":
    sys.exit(main())
