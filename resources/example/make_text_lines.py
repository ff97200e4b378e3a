"""Cuts text-line crops out of a page image for the example project's calibration dataset: the PP-OCR
classifier tells 0 from 180 degree text lines, so it is calibrated on text lines in both orientations, not on
photos (whose activations it has never seen). Writes DEST/line_NN.png and DEST/line_NN_r180.png, and the
held-out test line (not in the dataset) to TEST.

usage: make_text_lines.py PAGE DEST TEST"""
import os
import sys

import cv2

HELD_OUT = 10  # the crop kept out of the dataset as the deploy's test input


def main():
    page, dest, test = sys.argv[1:4]
    img = cv2.imread(page, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit(f"make_text_lines.py: {page}: not a readable image")
    os.makedirs(dest, exist_ok=True)
    h, w = img.shape[:2]
    n = 0
    # 32x128 windows (the classifier's 1:4 aspect) stepping over the page's lines and columns.
    for y in range(8, h - 40, 20):
        for x in range(0, w - 127, 128):
            crop = img[y:y + 32, x:x + 128]
            if n == HELD_OUT:
                cv2.imwrite(test, crop)
            else:
                cv2.imwrite(os.path.join(dest, f"line_{n:02d}.png"), crop)
                cv2.imwrite(os.path.join(dest, f"line_{n:02d}_r180.png"), cv2.rotate(crop, cv2.ROTATE_180))
            n += 1
    print(f"{n - 1} text lines (and their 180-degree turns) in {dest}, test line {test}")


if __name__ == "__main__":
    main()
