#!/usr/bin/env python3
"""gzip on level responses (issue 13 target: at least 5x smaller on 200x200
landmark levels). For each seed it asks a real dungeond on a free loopback
port for the level (GET /v1/levels, explicit seed) in each representation,
once plain and once with Accept-Encoding: gzip, and reports per
representation, as medians over the seeds:

  identity bytes, gzip bytes, ratio (identity / gzip; also the worst seed),
  compression ms: the same zlib call the daemon makes (level from the
  config, gzip wrapper, memLevel 8), timed here on the daemon's own bytes,
  best of --repeat runs; and the daemon's own cost, read from Server-Timing
  (ser with gzip minus ser without, which is noisier).

  python3 bench/gzip_bench.py [--build DIR] [--seeds 20] [--size 200] [--repeat 5] [--json]

Loopback only; a run takes a few seconds.
"""
import argparse
import gzip
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

FORMATS = [("json", "application/json"), ("ascii", "text/plain"),
           ("svg", "image/svg+xml"), ("tiled", "application/vnd.dungeond.tiled+json")]


def start_daemon(build, level):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "config", "dungeond.json")) as f:
        config = json.load(f)
    config["log_requests"] = False
    config["roomsets_dir"] = ""
    config["compression"]["gzip_level"] = level
    work = tempfile.mkdtemp(prefix="dungeond-gzip-bench-")
    path = os.path.join(work, "dungeond.json")
    with open(path, "w") as f:
        json.dump(config, f)
    proc = subprocess.Popen([os.path.join(build, "src", "server", "dungeond"), "--config", path,
                             "--listen", "127.0.0.1:0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    match = re.search(r'"port":(\d+)', proc.stderr.readline())
    if not match:
        proc.kill()
        sys.exit("dungeond did not start")
    return proc, int(match.group(1)), work


def fetch(port, path, accept, encoding):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Accept": accept}
    if encoding:
        headers["Accept-Encoding"] = encoding
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if response.status != 200:
        sys.exit(f"{path}: {response.status} {body[:200]!r}")
    timing = re.search(r"ser;dur=([0-9.]+)", response.getheader("Server-Timing", ""))
    return body, response.getheader("Content-Encoding"), float(timing.group(1))


def compress_ms(data, level, repeat):
    best = None
    for _ in range(repeat):
        started = time.perf_counter()
        packer = zlib.compressobj(level, zlib.DEFLATED, 31, 8)
        packed = packer.compress(data) + packer.flush()
        elapsed = (time.perf_counter() - started) * 1000
        best = elapsed if best is None else min(best, elapsed)
    return best, len(packed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build"))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--level", type=int, default=6, help="gzip level (config default 6)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    proc, port, work = start_daemon(args.build, args.level)
    rows = {}
    progress = benchlib.Progress("gzip_bench.py")
    try:
        for name, accept in FORMATS:
            sizes, packed_sizes, ratios, ms, daemon_ms = [], [], [], [], []
            for seed in range(1, args.seeds + 1):
                progress.step(name, seed, args.seeds, "seeds")
                path = (f"/v1/levels?algorithm=landmark&seed={seed}"
                        f"&width={args.size}&height={args.size}")
                plain, plain_encoding, plain_ser = fetch(port, path, accept, None)
                packed, packed_encoding, packed_ser = fetch(port, path, accept, "gzip")
                if plain_encoding is not None or packed_encoding != "gzip":
                    sys.exit(f"{name} seed {seed}: encodings {plain_encoding} {packed_encoding}")
                if gzip.decompress(packed) != plain:
                    sys.exit(f"{name} seed {seed}: gzip body does not decompress to the level")
                took, local_size = compress_ms(plain, args.level, args.repeat)
                if local_size != len(packed):
                    sys.exit(f"{name} seed {seed}: daemon gzip {len(packed)} bytes, zlib here "
                             f"{local_size}: not the same call")
                sizes.append(len(plain))
                packed_sizes.append(len(packed))
                ratios.append(len(plain) / len(packed))
                ms.append(took)
                daemon_ms.append(packed_ser - plain_ser)
            rows[name] = {
                "identity_bytes_median": statistics.median(sizes),
                "gzip_bytes_median": statistics.median(packed_sizes),
                "ratio_median": round(statistics.median(ratios), 2),
                "ratio_min": round(min(ratios), 2),
                "compress_ms_median": round(statistics.median(ms), 3),
                "compress_mb_per_s": round(statistics.median(sizes) / 1e6 /
                                           (statistics.median(ms) / 1000), 1),
                "daemon_gzip_ms_median": round(statistics.median(daemon_ms), 3),
            }
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)
    result = {"algorithm": "landmark", "width": args.size, "height": args.size,
              "seeds": args.seeds, "gzip_level": args.level, "target_ratio": 5,
              "json_meets_target": rows["json"]["ratio_min"] >= 5, "formats": rows}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"gzip level {args.level} on landmark {args.size}x{args.size}, seeds 1-{args.seeds} "
          f"(medians; ratio min is the worst seed)")
    print(f"{'format':8} {'identity B':>11} {'gzip B':>9} {'ratio':>7} {'min':>6} "
          f"{'zlib ms':>8} {'MB/s':>7} {'daemon ms':>10}")
    for name, row in rows.items():
        print(f"{name:8} {row['identity_bytes_median']:>11.0f} {row['gzip_bytes_median']:>9.0f} "
              f"{row['ratio_median']:>6.2f}x {row['ratio_min']:>5.2f}x "
              f"{row['compress_ms_median']:>8.3f} {row['compress_mb_per_s']:>7.1f} "
              f"{row['daemon_gzip_ms_median']:>10.3f}")
    print(f"target: json at least 5x smaller on every seed: "
          f"{'met' if result['json_meets_target'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
