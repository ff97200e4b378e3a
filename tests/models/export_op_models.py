"""Exports small models built around the ops that lower to the chip as global float ops (issue 18, item 5),
for op_models_equal.py:

- norms (PyTorch): conv, nn.GroupNorm (exported as InstanceNormalization between reshapes, fused back into
  top.groupnorm), nn.InstanceNorm2d with affine, conv.
- indexing (PyTorch): torch.gather (GatherElements), Tensor.scatter (ScatterElements), an index_put of rows
  (ScatterND), their indices fed at run time, and torch.pow of two tensors (Pow).
- sampling (PyTorch): F.grid_sample on a grid the network computes, a bicubic 2x resize and a bilinear
  resize by 1.3 (a scale that gives no whole size: Resize keeps its scales).
- volumes (PyTorch): 3-D windows as video and volumetric models use them, which import as 2-D ops over the
  depth folded into batch or channels: Conv3d (padded; depthwise strided; depth-dilated and strided without
  bias), MaxPool3d, AvgPool3d in ceil mode without the pads counted, ConvTranspose3d as an upsampling (kernel
  = stride, plain and grouped), with overlapping taps, pads and output padding, and dilated along D.
- lists (ONNX written directly, with its output shapes declared): Range too long to fold, a Slice whose
  bounds are graph inputs, NonZero of a comparison and NonMaxSuppression of boxes the model computes.

PyTorch's output for the test input is written as the independent reference of the first three models; the
fourth has a numpy reference.

usage: export_op_models.py OUTDIR
writes OUTDIR/<name>.onnx, OUTDIR/<name>_in.npz (inputs by the model's names), OUTDIR/<name>_ref.npz."""
import argparse
import os

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper
from torch import nn


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 16, 3, padding=1)
        self.gn = nn.GroupNorm(4, 16)
        self.inorm = nn.InstanceNorm2d(16, affine=True)
        self.conv2 = nn.Conv2d(16, 8, 3, padding=1)
        with torch.no_grad():
            for norm in (self.gn, self.inorm):
                norm.weight.uniform_(0.5, 1.5)
                norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.conv2(self.inorm(torch.relu(self.gn(self.conv1(x)))))


class Indexing(nn.Module):
    """Indices are graph inputs (constant ones fold into gathers and wheres at import)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(10, 10)

    def forward(self, x, gather_ids, scatter_ids, rows):  # [2, 6, 10], [2, 6, 4], [2, 6, 4], [2]
        x = self.lin(x)
        picked = torch.gather(x, 2, gather_ids)
        y = (x * 2).scatter(2, scatter_ids, picked)
        y = y.index_put((rows,), y[0:2] * 0.5)
        return torch.pow(torch.sigmoid(y) + 0.5, torch.tanh(y))


class Sampling(nn.Module):
    def __init__(self):
        super().__init__()
        self.feat = nn.Conv2d(4, 4, 3, padding=1)
        self.offsets = nn.Conv2d(4, 2, 3, padding=1)

    def forward(self, x):  # [1, 4, 12, 12]
        f = torch.relu(self.feat(x))
        grid = torch.tanh(self.offsets(x)).permute(0, 2, 3, 1)
        s = F.grid_sample(f, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        up = F.interpolate(s, scale_factor=2, mode="bicubic", align_corners=False)
        return F.interpolate(up, scale_factor=1.3, mode="bilinear", align_corners=False)


class Volumes(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv3d(2, 8, 3, padding=1)
        self.dw = nn.Conv3d(8, 8, 3, stride=(1, 2, 2), padding=1, groups=8)
        self.c2 = nn.Conv3d(8, 8, (2, 3, 3), stride=(2, 1, 1), padding=1, dilation=(2, 1, 1), bias=False)
        self.mp = nn.MaxPool3d(2)
        self.ap = nn.AvgPool3d((2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), ceil_mode=True,
                               count_include_pad=False)
        self.up = nn.ConvTranspose3d(8, 4, 2, stride=2)
        self.up2 = nn.ConvTranspose3d(4, 4, 2, stride=2, groups=2)
        self.de = nn.ConvTranspose3d(4, 3, 3, stride=2, padding=1, output_padding=1)
        # kernel = stride along D but dilated: the taps overlap, so it is no upsampling
        self.dil = nn.ConvTranspose3d(3, 2, (2, 1, 1), stride=(2, 1, 1), dilation=(2, 1, 1))

    def forward(self, x):  # [1, 2, 8, 16, 16]
        y = torch.relu(self.dw(torch.relu(self.c1(x))))
        y = self.ap(self.mp(self.c2(y)))
        return self.dil(self.de(self.up2(torch.relu(self.up(y)))))


def export_torch(model, name, inputs, out):
    model.eval()
    torch.manual_seed(0)
    with torch.no_grad():
        ref = model(*[torch.from_numpy(v) for v in inputs.values()])
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, tuple(torch.from_numpy(v) for v in inputs.values()), path, opset_version=17,
                      input_names=list(inputs), output_names=["output"])
    np.savez(os.path.join(out, name + "_in.npz"), **inputs)
    np.savez(os.path.join(out, name + "_ref.npz"), output=ref.numpy())


def nms_reference(boxes, scores, iou_threshold, score_threshold, max_per_class):
    """ONNX NonMaxSuppression for corner boxes [1, N, 4] (y1, x1, y2, x2) and scores [1, C, N]."""
    kept = []
    b = boxes[0]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    for c in range(scores.shape[1]):
        order = [i for i in np.argsort(-scores[0, c], kind="stable") if scores[0, c, i] > score_threshold]
        chosen = []
        for i in order:
            if len(chosen) == max_per_class:
                break
            ok = True
            for j in chosen:
                h = max(0.0, min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0]))
                w = max(0.0, min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1]))
                inter = h * w
                if inter / (area[i] + area[j] - inter) > iou_threshold:
                    ok = False
                    break
            if ok:
                chosen.append(i)
        kept += [[0, c, i] for i in chosen]
    return np.array(kept, dtype=np.int64)


def export_lists(out):
    """Range, Slice with a run-time start, NonZero, NonMaxSuppression and Unique (of the flattened levels,
    sorted, and of their columns repeated twice, in order of first occurrence), each output declared."""
    rng = np.random.default_rng(5)
    n, length = 24, 400
    x = rng.standard_normal((1, length)).astype(np.float32)
    start, end = np.array([37], dtype=np.int64), np.array([37 + 64], dtype=np.int64)
    corners = rng.uniform(0, 1, (1, n, 2)).astype(np.float32)
    sizes = rng.uniform(0.05, 0.4, (1, n, 2)).astype(np.float32)
    logits = rng.standard_normal((1, 2, n)).astype(np.float32)
    iou, score_th, max_per_class = 0.45, 0.3, 6
    levels = rng.integers(-4, 5, (8, 8)).astype(np.float32)

    # numpy reference of the whole graph
    positions = np.arange(0, length, 1, dtype=np.float32)
    ramp = (x + positions * 0.01)[:, 37:37 + 64]
    mask = ramp > 0.5
    coords = np.stack(np.nonzero(mask)).astype(np.int64)
    boxes = np.concatenate([corners, corners + sizes], axis=2)
    scores = 1 / (1 + np.exp(-logits))
    kept = nms_reference(boxes, scores, iou, score_th, max_per_class)
    u_values, u_first, u_inverse, u_counts = np.unique(levels, return_index=True, return_inverse=True,
                                                       return_counts=True)
    twice = np.concatenate([levels, levels], axis=1)
    columns = [tuple(twice[:, j]) for j in range(twice.shape[1])]
    c_first = np.array([j for j in range(len(columns)) if columns.index(columns[j]) == j], np.int64)
    c_values = twice[:, c_first]
    c_inverse = np.array([list(c_first).index(columns.index(col)) for col in columns], np.int64)
    c_counts = np.array([columns.count(columns[j]) for j in c_first], np.int64)
    uniques = dict(u_values=u_values, u_first=u_first.astype(np.int64), u_inverse=u_inverse.astype(np.int64),
                   u_counts=u_counts.astype(np.int64), c_values=c_values, c_first=c_first, c_inverse=c_inverse,
                   c_counts=c_counts)

    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    init = [numpy_helper.from_array(np.array(0, np.float32), "r_start"),
            numpy_helper.from_array(np.array(length, np.float32), "r_limit"),
            numpy_helper.from_array(np.array(1, np.float32), "r_delta"),
            numpy_helper.from_array(np.array(0.01, np.float32), "r_scale"),
            numpy_helper.from_array(np.array([1], np.int64), "s_axes"),
            numpy_helper.from_array(np.array(0.5, np.float32), "threshold"),
            numpy_helper.from_array(np.array([max_per_class], np.int64), "max_boxes"),
            numpy_helper.from_array(np.array([iou], np.float32), "iou"),
            numpy_helper.from_array(np.array([score_th], np.float32), "score_th")]
    nodes = [helper.make_node("Range", ["r_start", "r_limit", "r_delta"], ["positions"]),
             helper.make_node("Mul", ["positions", "r_scale"], ["scaled"]),
             helper.make_node("Add", ["x", "scaled"], ["shifted"]),
             helper.make_node("Slice", ["shifted", "start", "end", "s_axes"], ["ramp"]),
             helper.make_node("Greater", ["ramp", "threshold"], ["mask"]),
             helper.make_node("NonZero", ["mask"], ["coords"]),
             helper.make_node("Add", ["corners", "sizes"], ["far"]),
             helper.make_node("Concat", ["corners", "far"], ["boxes"], axis=2),
             helper.make_node("Sigmoid", ["logits"], ["scores"]),
             helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_boxes", "iou", "score_th"], ["kept"]),
             helper.make_node("Unique", ["levels"], ["u_values", "u_first", "u_inverse", "u_counts"], sorted=1),
             helper.make_node("Concat", ["levels", "levels"], ["twice"], axis=1),
             helper.make_node("Unique", ["twice"], ["c_values", "c_first", "c_inverse", "c_counts"], axis=1,
                              sorted=0)]
    graph = helper.make_graph(
        nodes, "lists",
        [helper.make_tensor_value_info("x", f32, [1, length]), helper.make_tensor_value_info("start", i64, [1]),
         helper.make_tensor_value_info("end", i64, [1]),
         helper.make_tensor_value_info("corners", f32, [1, n, 2]),
         helper.make_tensor_value_info("sizes", f32, [1, n, 2]),
         helper.make_tensor_value_info("logits", f32, [1, 2, n]),
         helper.make_tensor_value_info("levels", f32, [8, 8])],
        [helper.make_tensor_value_info("ramp", f32, [1, 64]),
         helper.make_tensor_value_info("coords", i64, list(coords.shape)),
         helper.make_tensor_value_info("kept", i64, list(kept.shape))] +
        [helper.make_tensor_value_info(k, f32 if v.dtype == np.float32 else i64, list(v.shape))
         for k, v in uniques.items()],
        init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "lists.onnx"))
    np.savez(os.path.join(out, "lists_in.npz"), x=x, start=start, end=end, corners=corners, sizes=sizes, logits=logits,
             levels=levels)
    np.savez(os.path.join(out, "lists_ref.npz"), ramp=ramp, coords=coords, kept=kept, **uniques)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    export_torch(Norms(), "norms", {"input": rng.standard_normal((1, 8, 16, 16)).astype(np.float32)}, a.out)
    # scatter targets distinct per row, so the result does not depend on the update order
    scatter_ids = np.stack([rng.permutation(10)[:4] for _ in range(12)]).reshape(2, 6, 4)
    export_torch(Indexing(), "indexing", {"input": rng.standard_normal((2, 6, 10)).astype(np.float32),
                                          "gather_ids": rng.integers(0, 10, (2, 6, 4)),
                                          "scatter_ids": scatter_ids, "rows": np.array([1, 0])}, a.out)
    export_torch(Sampling(), "sampling", {"input": rng.standard_normal((1, 4, 12, 12)).astype(np.float32)}, a.out)
    export_torch(Volumes(), "volumes", {"input": rng.standard_normal((1, 2, 8, 16, 16)).astype(np.float32)}, a.out)
    export_lists(a.out)


if __name__ == "__main__":
    main()
