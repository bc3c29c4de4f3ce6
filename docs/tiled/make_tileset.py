#!/usr/bin/env python3
"""Writes dungeond-tiles.png, the tileset image the Tiled export names: one
16x16 tile per grid tile, left to right in tile order (stone, floor,
corridor, wall, door, secret_door, secret_corridor, chest, stairs_up,
stairs_down, void), in the SVG picture's colours, with a small mark on the
tiles that need one. Python standard library only (zlib + struct).

Usage: make_tileset.py [OUTPUT.png]   (default: next to this script)
"""
import os
import struct
import sys
import zlib

SIZE = 16
# (fill, mark colour or None, mark shape) per tile, in dg_tile order.
TILES = [
    ("16161d", None, None),       # stone
    ("d8cfbd", None, None),       # floor
    ("9b9183", None, None),       # corridor
    ("5b4b3f", None, None),       # wall
    ("b0672a", "5b4b3f", "bar"),  # door
    ("8e44ad", "5b4b3f", "bar"),  # secret_door
    ("7d6f96", None, None),       # secret_corridor
    ("9b9183", "e6b422", "box"),  # chest
    ("9fd8a8", "2e8b57", "up"),   # stairs_up
    ("e8a99e", "c0392b", "down"), # stairs_down
    ("0b0b0f", None, None),       # void
]


def rgb(hex_colour):
    return tuple(int(hex_colour[i:i + 2], 16) for i in (0, 2, 4))


def marked(shape, x, y):
    if shape == "bar":
        return 6 <= x <= 9 and 3 <= y <= 12
    if shape == "box":
        return 3 <= x <= 12 and 5 <= y <= 12
    if shape == "up":  # a triangle pointing up
        return 3 <= y <= 13 and abs(x - 7.5) <= (y - 3) / 2 + 0.5
    if shape == "down":
        return 2 <= y <= 12 and abs(x - 7.5) <= (12 - y) / 2 + 0.5
    return False


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "dungeond-tiles.png")
    width = SIZE * len(TILES)
    rows = []
    for y in range(SIZE):
        row = bytearray([0])  # filter: none
        for fill, mark, shape in TILES:
            for x in range(SIZE):
                row += bytes(rgb(mark) if mark and marked(shape, x, y) else rgb(fill))
        rows.append(bytes(row))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    png = (b"\x89PNG\r\n\x1a\n"
           + chunk(b"IHDR", struct.pack(">IIBBBBB", width, SIZE, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
           + chunk(b"IEND", b""))
    with open(out, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
