#!/usr/bin/env python3
"""Writes dungeond-tiles.png, the tileset image the Tiled export names: one
16x16 tile per grid tile, left to right in tile order (stone, floor,
corridor, wall, door, secret_door, secret_corridor, chest, stairs_up,
stairs_down, void), in the SVG picture's colours, with a small mark on the
tiles that need one; and dungeond-tiles-progression.png, the same strip
followed by the progression pass's tiles (locked_door, key, one_way_north,
one_way_east, one_way_south, one_way_west), which maps of levels with locks
or one-way doors name. Python standard library only (zlib + struct).

Usage: make_tileset.py [OUTPUT_DIR]   (default: next to this script)
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
PROGRESSION_TILES = [
    ("7b241c", "e6b422", "bar"),    # locked_door
    ("d8cfbd", "e6b422", "box"),    # key
    ("b0672a", "ffffff", "up"),     # one_way_north
    ("b0672a", "ffffff", "right"),  # one_way_east
    ("b0672a", "ffffff", "down"),   # one_way_south
    ("b0672a", "ffffff", "left"),   # one_way_west
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
    if shape == "right":
        return marked("down", y, x)
    if shape == "left":
        return marked("up", y, x)
    return False


def write(out, tiles):
    width = SIZE * len(tiles)
    rows = []
    for y in range(SIZE):
        row = bytearray([0])  # filter: none
        for fill, mark, shape in tiles:
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


def main():
    here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, "dungeond-tiles.png"), TILES)
    write(os.path.join(here, "dungeond-tiles-progression.png"), TILES + PROGRESSION_TILES)


if __name__ == "__main__":
    main()
