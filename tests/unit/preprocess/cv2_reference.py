"""Independent reference for the preprocessing tests: OpenCV (Debian python3-opencv) and numpy.

  cv2_reference.py resize SRC.npz SIZES.json OUT.npz      cv2.resize INTER_LINEAR of HWC uint8 images;
                                                          SIZES maps each array to [[h, w], ...],
                                                          results are named "<array>@<h>x<w>"
  cv2_reference.py decode OUT.npz IMAGE...                cv2.imread as BGR, gray and RGBA: <i>_bgr, ...
  cv2_reference.py preprocess JOBS.json OUT.npz           TPU-MLIR's preprocess.py semantics re-written
                                                          with numpy + cv2; JOBS is a list of
                                                          {"key", "image", "config"}, one array per key
"""
import json
import sys

import cv2
import numpy as np


def imread(path, pixel_format):
    if pixel_format == "gray":
        # cvtColor's coefficients, which the C++ side documents (imread GRAYSCALE lets the codec convert).
        return cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2GRAY)
    if pixel_format == "rgba":
        img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        if img.dtype != np.uint8:
            img = (img >> 8).astype(np.uint8)
        if img.ndim == 2:
            return cv2.cvtColor(img, cv2.COLOR_GRAY2RGBA)
        if img.shape[2] == 4:
            return cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA)
        return cv2.cvtColor(img, cv2.COLOR_BGR2RGBA)
    return cv2.imread(path, cv2.IMREAD_COLOR)  # BGR; rgb is swapped after normalization, as TPU-MLIR


def letterbox(image, h, w, pad_value, pad_type):
    # TPU-MLIR's ImageResizeTool.letterbox_resize, generalized to any channel count.
    ih, iw = image.shape[:2]
    scale = min(float(w) / iw, float(h) / ih)
    rw, rh = int(iw * scale), int(ih * scale)
    resized = cv2.resize(image, (rw, rh))
    new = np.full((h, w) + image.shape[2:], pad_value, dtype=image.dtype)
    if pad_type == "center":
        ph, pw = (h - rh) // 2, (w - rw) // 2
        new[ph:ph + rh, pw:pw + rw] = resized
    else:
        new[:rh, :rw] = resized
    return new


def preprocess(path, cfg):
    shape = cfg["input_shape"]
    nchw = cfg.get("channel_format", "nchw") == "nchw"
    c, h, w = shape[-3:] if nchw else (shape[-1], shape[-3], shape[-2])
    fmt = cfg.get("pixel_format", "bgr")
    img = imread(path, fmt)
    rd = cfg.get("resize_dims") or [h, w]
    rd = [max(a, b) for a, b in zip(rd, [h, w])]
    if cfg.get("keep_aspect_ratio", False):
        img = letterbox(img, rd[0], rd[1], int(cfg.get("pad_value", 0)), cfg.get("pad_type", "center"))
    else:
        img = cv2.resize(img, (rd[1], rd[0]))
    if img.ndim == 2:
        img = img[:, :, None]
    if rd != [h, w]:
        sh, sw = rd[0] // 2 - h // 2, rd[1] // 2 - w // 2
        img = img[sh:sh + h, sw:sw + w]
    x = img.astype(np.float32)
    if fmt == "rgb":
        x = x[:, :, [2, 1, 0]]

    def per_channel(values, default):
        values = values or [default]
        values = values * c if len(values) == 1 else values[:c]
        return np.array(values, dtype=np.float32)

    x = (x - per_channel(cfg.get("mean"), 0.0)) * per_channel(cfg.get("scale"), 1.0)
    if nchw:
        x = x.transpose(2, 0, 1)
    return np.ascontiguousarray(np.broadcast_to(x, shape), dtype=np.float32)


def main(argv):
    mode = argv[1]
    if mode == "resize":
        srcs = np.load(argv[2])
        with open(argv[3]) as f:
            sizes = json.load(f)
        out = {}
        for key, dims in sizes.items():
            for h, w in dims:
                out[f"{key}@{h}x{w}"] = cv2.resize(srcs[key], (w, h),
                                                   interpolation=cv2.INTER_LINEAR).reshape(h, w, -1)
        np.savez(argv[4], **out)
    elif mode == "decode":
        out = {}
        for i, path in enumerate(argv[3:]):
            for fmt in ("bgr", "gray", "rgba"):
                out[f"{i}_{fmt}"] = imread(path, fmt)
        np.savez(argv[2], **out)
    elif mode == "preprocess":
        with open(argv[2]) as f:
            jobs = json.load(f)
        np.savez(argv[3], **{job["key"]: preprocess(job["image"], job["config"]) for job in jobs})
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    main(sys.argv)
