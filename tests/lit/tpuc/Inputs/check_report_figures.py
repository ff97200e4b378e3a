"""Checks the PNG figures of `tpuc calibrate --report DIR`: every PNG listed in DIR/index.html exists, is a PNG
(signature, IHDR first) of WIDTHxHEIGHT, and the index lists every tensor of histograms.json. Prints one line:
the figure count and the size. Usage: check_report_figures.py DIR WIDTH HEIGHT"""
import html.parser
import json
import os
import struct
import sys

folder, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.links, self.rows = [], [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs["src"])
        elif tag == "a":
            self.links.append(attrs["href"])
        elif tag == "tr":
            self.rows += 1


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        sys.exit(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


index = Links()
index.feed(open(os.path.join(folder, "index.html"), encoding="utf-8").read())
tensors = json.load(open(os.path.join(folder, "histograms.json")))["tensors"]
if index.rows != len(tensors) + 1:  # the header row and one row per tensor
    sys.exit(f"index.html lists {index.rows - 1} tensors, histograms.json has {len(tensors)}")
figures = index.images + index.links
pngs = sorted(name for name in os.listdir(folder) if name.endswith(".png"))
if sorted(figures) != pngs:
    sys.exit(f"index.html names {sorted(figures)}, the folder holds {pngs}")
for name in figures:
    size = png_size(os.path.join(folder, name))
    if size != (width, height):
        sys.exit(f"{name}: {size[0]}x{size[1]}, expected {width}x{height}")
print(f"{len(index.links)} tensor figures and {' '.join(index.images)}, all {width}x{height} PNGs")
