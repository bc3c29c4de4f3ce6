"""What the bench/ script tests (bench_scripts.py, bench_ceilings.py) check
with: running a script, its exit status, positive figures and ratios that
are the quotient of the figures beside them. Standard library only."""
import subprocess


def run(cmd, env=None, timeout=120):
    """`cmd` with its output captured as text; the CompletedProcess."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def ok(out):
    """The stdout of a CompletedProcess that exited 0; raises otherwise."""
    if out.returncode != 0:
        raise AssertionError(f"{out.args} exited {out.returncode}: {out.stderr[-3000:]}")
    return out.stdout


def positive(value, what):
    if not (isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0):
        raise AssertionError(f"{what} is {value!r}, expected a positive number")


def close(ratio, numerator, denominator, what):
    # Rounded values: the ratio of the medians equals the median ratio for
    # one round, to rounding.
    if abs(ratio - numerator / denominator) > 0.002 * max(1.0, ratio):
        raise AssertionError(f"{what}: ratio {ratio} is not {numerator} / {denominator}")


def table_rows(out, count):
    """The rows of a bench/ script's table (lines indented by two spaces)
    after checking its header, that there are `count` of them, and that each
    ends in a ratio and a min-max range in order."""
    lines = out.splitlines()
    assert lines[0].split() == ["ours", "rate", "peer", "rate", "ours/peer", "min-max"], lines[0]
    rows = [line for line in lines if line.startswith("  ")]
    assert len(rows) == count, f"{len(rows)} rows: {lines}"
    for line in rows:
        cells = line.split()
        float(cells[-2])  # ours/peer
        lo, hi = (float(x) for x in cells[-1].split("-"))
        assert lo <= hi, line
    return rows
