"""Writes a small image folder with known answers for `tpuc dataset`: OUT/cats (4 images, one an exact copy
of another), OUT/dogs (2 images), a corrupt OUT/cats/broken.jpg, a file that is not a sample.
Usage: make_image_folder.py OUT"""
import os
import sys
import cv2
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(5)


def image(seed):
    r = np.random.default_rng(seed)
    p = np.full((48, 64), r.integers(0, 256), np.uint8)
    for _ in range(12):
        x0, y0 = r.integers(0, 64), r.integers(0, 48)
        p[y0:y0 + 4 + r.integers(0, 32), x0:x0 + 4 + r.integers(0, 24)] = r.integers(0, 256)
    p = p.astype(np.int32)
    # OpenCV writes BGR: blue, green, red planes.
    return np.dstack([10 + p // 4, 40 + p // 2, 100 + p * 6 // 10]).astype(np.uint8)


for folder, count in (("cats", 3), ("dogs", 2)):
    os.makedirs(os.path.join(out, folder), exist_ok=True)
    for i in range(count):
        cv2.imwrite(os.path.join(out, folder, f"{folder[:-1]}{i}.png"), image({"cats": 0, "dogs": 100}[folder] + i))
with open(os.path.join(out, "cats", "cat0.png"), "rb") as f:
    data = f.read()
with open(os.path.join(out, "cats", "cat0_copy.png"), "wb") as f:
    f.write(data)
with open(os.path.join(out, "cats", "broken.jpg"), "w") as f:
    f.write("not a jpeg")
with open(os.path.join(out, "labels.txt"), "w") as f:
    f.write("not a sample")
