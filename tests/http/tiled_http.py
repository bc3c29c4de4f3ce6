#!/usr/bin/env python3
"""Issue 21 item 6: a Tiled map fetched over HTTP opens in Debian's real Tiled
with its art. The map (.tmj) is fetched from the daemon and saved; the
tileset image it names is fetched from the URL it resolves to beside the map
(the daemon serves it there) and saved beside it; tmxrasterizer (package
tiled, deploy/install-deps.sh) renders the map with Qt's offscreen platform.
Every tile of the rendering must show the tileset's pixel for that tile,
not Tiled's red cross for a missing image.

Usage: tiled_http.py PATH/TO/dungeond    (prints TAP; Python standard library)
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dungeond_http as harness  # noqa: E402
from dungeond_http import check  # noqa: E402

TILED = "application/vnd.dungeond.tiled+json"
PROGRESSION = "/v1/levels?algorithm=landmark&seed=1&locks=2&one_way=1"


def png_pixels(data):
    """(width, height, rows of RGBA tuples) of an 8-bit PNG (RGB or RGBA,
    not interlaced), enough for Qt's and the tileset's files."""
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG")
    at, idat, width = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            check(depth == 8 and color in (2, 6) and interlace == 0,
                  f"PNG depth {depth} color {color} interlace {interlace}")
            channels = 4 if color == 6 else 3
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc
                                      else corner)) & 255
        rows.append([tuple(line[i:i + channels]) + ((255,) if channels == 3 else ())
                     for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def rasterize(directory, tmj, out, layers=("--show-layer", "tiles")):
    """The map's tile layer alone (objects would be drawn over the tiles),
    pixel for pixel."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run(["tmxrasterizer", *layers, "--no-smoothing",
                          os.path.join(directory, tmj),
                          os.path.join(directory, out)],
                         capture_output=True, text=True, timeout=120, env=env)
    check(run.returncode == 0, f"tmxrasterizer: {run.returncode} {run.stderr}")
    with open(os.path.join(directory, out), "rb") as f:
        return png_pixels(f.read())


def tiled_opens_the_map_with_its_art(d):
    if shutil.which("tmxrasterizer") is None:
        raise harness.SkipTest("tmxrasterizer not installed: run deploy/install-deps.sh")
    directory = tempfile.mkdtemp(prefix="dungeond-tiled-")
    try:
        for path, method, body in (("/v1/levels?algorithm=classic&seed=3", "GET", None),
                                   ("/v1/lobbies/tiled1/start", "POST", {"players": {"a": {}}}),
                                   # Issue 19: locked doors, keys and one-way doors
                                   # name the progression strip, served beside too.
                                   (PROGRESSION, "GET", None)):
            status, headers, data = d.request(method, path, body, {"Accept": TILED})
            check(status == 200 and headers["content-type"].startswith(TILED), f"{path}: {status}")
            tmj = json.loads(data)
            image = tmj["tilesets"][0]["image"]
            check("/" not in image, f"the tileset is not named beside the map: {image}")
            with open(os.path.join(directory, "map.tmj"), "wb") as f:
                f.write(data)
            if os.path.exists(os.path.join(directory, image)):
                os.unlink(os.path.join(directory, image))
            # Without the image beside it, Tiled draws red crosses: the
            # rendering differs from the one with it (so the check can fail).
            missing = rasterize(directory, "map.tmj", "missing.png")
            url = urllib.parse.urljoin(f"http://127.0.0.1:{d.port}{path}", image)
            status, headers, png = d.request("GET", urllib.parse.urlparse(url).path)
            check(status == 200 and headers["content-type"] == "image/png",
                  f"{url}: {status} {headers.get('content-type')}")
            with open(os.path.join(os.path.dirname(harness.__file__), "..", "..", "docs", "tiled",
                                   image), "rb") as f:
                check(f.read() == png, "the daemon's tileset is not docs/tiled's")
            with open(os.path.join(directory, image), "wb") as f:
                f.write(png)
            width, height, rendered = rasterize(directory, "map.tmj", "map.png")
            check(rendered != missing[2], "the rendering ignores the tileset")
            size = tmj["tilewidth"]
            check((width, height) == (tmj["width"] * size, tmj["height"] * size),
                  f"rendered {width}x{height}")
            _, _, strip = png_pixels(png)
            layer = next(layer for layer in tmj["layers"] if layer["type"] == "tilelayer")
            check(layer["name"] == "tiles", f"tile layer {layer['name']}")
            wrong = 0
            for y in range(tmj["height"]):
                for x in range(tmj["width"]):
                    gid = layer["data"][y * tmj["width"] + x]
                    if gid == 0:
                        continue
                    want = strip[size // 2][(gid - 1) * size + size // 2]
                    got = rendered[y * size + size // 2][x * size + size // 2]
                    wrong += want[3] == 255 and got[:3] != want[:3]
            check(wrong == 0, f"{path}: {wrong} tiles without the tileset's art")
            used = {gid for gid in layer["data"] if gid != 0}
            bare = sorted(gid for gid in used
                          if strip[size // 2][(gid - 1) * size + size // 2][3] != 255)
            check(not bare, f"{path}: tiles {bare} have no art in {image}")
            if path == PROGRESSION:
                legend = {t["id"] + 1: t.get("type", t.get("class"))
                          for t in tmj["tilesets"][0].get("tiles", [])}
                shown = {legend.get(gid) for gid in used}
                for name in ("locked_door", "key"):
                    check(name in shown, f"{path}: no {name} tile in the map ({sorted(map(str, shown))})")
                check(any(str(n).startswith("one_way_") for n in shown),
                      f"{path}: no one-way door tile in the map")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def tiled_opens_a_set_with_a_group_per_floor(d):
    """Issue 25 item 2: a multi-floor set as one Tiled map. Tiled opens it
    with floor 1's group visible (the others in the layer panel), drawn with
    the tileset's art."""
    if shutil.which("tmxrasterizer") is None:
        raise harness.SkipTest("tmxrasterizer not installed: run deploy/install-deps.sh")
    directory = tempfile.mkdtemp(prefix="dungeond-tiled-set-")
    try:
        path = "/v1/levels?algorithm=classic&seed=9&floors=3"
        status, headers, data = d.request("GET", path, None, {"Accept": TILED})
        check(status == 200 and headers["content-type"].startswith(TILED), f"{path}: {status}")
        tmj = json.loads(data)
        with open(os.path.join(directory, "set.tmj"), "wb") as f:
            f.write(data)
        image = tmj["tilesets"][0]["image"]
        url = urllib.parse.urljoin(f"http://127.0.0.1:{d.port}{path}", image)
        status, _, png = d.request("GET", urllib.parse.urlparse(url).path)
        check(status == 200, f"{url}: {status}")
        with open(os.path.join(directory, image), "wb") as f:
            f.write(png)
        groups = tmj["layers"]
        check([g["name"] for g in groups] == ["floor 1", "floor 2", "floor 3"], f"{groups[:1]}")
        width, height, rendered = rasterize(directory, "set.tmj", "set.png",
                                            ("--hide-layer", "objects"))
        size = tmj["tilewidth"]
        check((width, height) == (tmj["width"] * size, tmj["height"] * size),
              f"rendered {width}x{height}")
        _, _, strip = png_pixels(png)
        shown = {1: 0, 2: 0, 3: 0}  # cells that show each floor's art where floors differ
        datas = [g["layers"][0]["data"] for g in groups]
        wrong = 0
        for i, gid in enumerate(datas[0]):
            if gid == 0:
                continue
            y, x = divmod(i, tmj["width"])
            want = strip[size // 2][(gid - 1) * size + size // 2]
            got = rendered[y * size + size // 2][x * size + size // 2]
            wrong += want[3] == 255 and got[:3] != want[:3]
            for k in (1, 2):
                other = datas[k][i]
                if other in (0, gid):
                    continue
                theirs = strip[size // 2][(other - 1) * size + size // 2]
                if theirs[:3] != want[:3]:  # art that tells the two floors apart
                    shown[k + 1] += got[:3] == theirs[:3]
        check(wrong == 0, f"{wrong} tiles of floor 1 without the tileset's art")
        check(shown[2] == 0 and shown[3] == 0, f"hidden floors drawn: {shown}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def tiled_opens_an_authored_level_by_storey(d):
    """Issue 25 item 1: an authored level on several storeys is a group per
    storey; Tiled opens it with the start room's storey shown, drawn with
    the tileset's art (its stairs tiles too), the other storeys hidden."""
    if shutil.which("tmxrasterizer") is None:
        raise harness.SkipTest("tmxrasterizer not installed: run deploy/install-deps.sh")
    directory = tempfile.mkdtemp(prefix="dungeond-tiled-storeys-")
    try:
        path = "/v1/levels?algorithm=authored&seed=1&roomset=crypt&rooms=30"
        status, _, data = d.request("GET", path, None, {"Accept": TILED})
        check(status == 200, f"{path}: {status}")
        tmj = json.loads(data)
        with open(os.path.join(directory, "storeys.tmj"), "wb") as f:
            f.write(data)
        image = tmj["tilesets"][0]["image"]
        status, _, png = d.request("GET", "/v1/" + image)
        check(status == 200, f"{image}: {status}")
        with open(os.path.join(directory, image), "wb") as f:
            f.write(png)
        groups = tmj["layers"]
        check([g["name"] for g in groups] == ["y = -8", "y = 0", "y = 4", "y = 8"],
              f"groups {[g['name'] for g in groups]}")
        shown = [g for g in groups if g["visible"]]
        check(len(shown) == 1, f"{len(shown)} storeys visible when the map opens")
        width, height, rendered = rasterize(directory, "storeys.tmj", "storeys.png",
                                            ("--hide-layer", "objects"))
        size = tmj["tilewidth"]
        _, _, strip = png_pixels(png)
        art = [strip[size // 2][k * size + size // 2] for k in range(len(strip[0]) // size)]
        visible = shown[0]["layers"][0]["data"]
        wrong = hidden = 0
        for i, gid in enumerate(visible):
            y, x = divmod(i, tmj["width"])
            got = rendered[y * size + size // 2][x * size + size // 2][:3]
            if gid > 1:  # this storey's art, stairs included
                wrong += art[gid - 1][3] == 255 and got != art[gid - 1][:3]
            else:  # another storey's room here must not show
                hidden += any(g["layers"][0]["data"][i] > 1 and
                              got == art[g["layers"][0]["data"][i] - 1][:3] != art[0][:3]
                              for g in groups if not g["visible"])
        check(wrong == 0, f"{wrong} cells of the shown storey without the tileset's art")
        check(hidden == 0, f"{hidden} cells show a hidden storey")
        stairs = {t["id"] + 1 for t in tmj["tilesets"][0]["tiles"]
                  if t["type"] in ("stairs_up", "stairs_down")}
        check(stairs & set(visible), "no stairs tile on the storey shown")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main():
    harness.DAEMON = os.path.abspath(sys.argv[1])
    print("1..3", flush=True)
    tap = harness.Tap()
    d = harness.Daemon()
    try:
        tap.report("a .tmj saved from HTTP opens in Tiled (tmxrasterizer) with its art",
                   tiled_opens_the_map_with_its_art, d)
        tap.report("a multi-floor set's .tmj opens in Tiled with a group per floor, floor 1 shown",
                   tiled_opens_a_set_with_a_group_per_floor, d)
        tap.report("an authored level's .tmj opens in Tiled with a group per storey, one shown",
                   tiled_opens_an_authored_level_by_storey, d)
    finally:
        if d.stop() != 0 or d.sanitizer_reports():
            tap.failed += 1
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
