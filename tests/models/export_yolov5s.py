#!/usr/bin/env python3
"""Exports a YOLOv5s (v6.0 layout: Conv-BN-SiLU, C3, SPPF, PANet neck, Detect with the grid decode) from
PyTorch to ONNX, written here from the published architecture (width 0.5, depth 0.33, 80 classes), with
re-randomized weights (no pretrained weights are available offline; torch's default init gives degenerate
activations). Prints the names of the three detection convolutions' outputs, the tensors TPU-MLIR's
documented flow cuts the graph at (its `--output_names 350,498,646`).

usage: export_yolov5s.py OUT.onnx SIZE PHOTO..."""
import sys

import torch
import torch.nn as nn


class Conv(nn.Module):
    def __init__(self, c1, c2, k=1, s=1, p=None):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2 if p is None else p, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    def __init__(self, c1, c2, shortcut=True):
        super().__init__()
        self.cv1, self.cv2 = Conv(c1, c2, 1), Conv(c2, c2, 3)
        self.add = shortcut and c1 == c2

    def forward(self, x):
        y = self.cv2(self.cv1(x))
        return x + y if self.add else y


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True):
        super().__init__()
        c = c2 // 2
        self.cv1, self.cv2, self.cv3 = Conv(c1, c, 1), Conv(c1, c, 1), Conv(2 * c, c2, 1)
        self.m = nn.Sequential(*(Bottleneck(c, c, shortcut) for _ in range(n)))

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        c = c1 // 2
        self.cv1, self.cv2 = Conv(c1, c, 1), Conv(c * 4, c2, 1)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class Detect(nn.Module):
    anchors = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]
    strides = [8, 16, 32]

    def __init__(self, channels, size, nc=80):
        super().__init__()
        self.no, self.na = nc + 5, 3
        self.m = nn.ModuleList(nn.Conv2d(c, self.no * self.na, 1) for c in channels)
        for i, s in enumerate(self.strides):
            ny = nx = size // s
            yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
            grid = torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float() - 0.5
            anchor = torch.tensor(self.anchors[i], dtype=torch.float32).view(1, self.na, 1, 1, 2)
            self.register_buffer(f"grid{i}", grid)
            self.register_buffer(f"anchor{i}", anchor.expand(1, self.na, ny, nx, 2).contiguous())

    def forward(self, xs):
        z = []
        for i, x in enumerate(xs):
            x = self.m[i](x)
            bs, _, ny, nx = x.shape
            y = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).sigmoid()
            xy = (y[..., 0:2] * 2 + getattr(self, f"grid{i}")) * self.strides[i]
            wh = (y[..., 2:4] * 2) ** 2 * getattr(self, f"anchor{i}")
            z.append(torch.cat((xy, wh, y[..., 4:]), -1).view(bs, -1, self.no))
        return torch.cat(z, 1)


class YoloV5s(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.b0, self.b1, self.b2 = Conv(3, 32, 6, 2, 2), Conv(32, 64, 3, 2), C3(64, 64, 1)
        self.b3, self.b4 = Conv(64, 128, 3, 2), C3(128, 128, 2)
        self.b5, self.b6 = Conv(128, 256, 3, 2), C3(256, 256, 3)
        self.b7, self.b8, self.b9 = Conv(256, 512, 3, 2), C3(512, 512, 1), SPPF(512, 512)
        self.h10, self.h13 = Conv(512, 256, 1), C3(512, 256, 1, False)
        self.h14, self.h17 = Conv(256, 128, 1), C3(256, 128, 1, False)
        self.h18, self.h20 = Conv(128, 128, 3, 2), C3(256, 256, 1, False)
        self.h21, self.h23 = Conv(256, 256, 3, 2), C3(512, 512, 1, False)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.detect = Detect([128, 256, 512], size)

    def forward(self, x):
        x = self.b2(self.b1(self.b0(x)))
        p3 = self.b4(self.b3(x))
        p4 = self.b6(self.b5(p3))
        p5 = self.b9(self.b8(self.b7(p4)))
        h10 = self.h10(p5)
        h14 = self.h14(self.h13(torch.cat((self.up(h10), p4), 1)))
        out3 = self.h17(torch.cat((self.up(h14), p3), 1))
        out4 = self.h20(torch.cat((self.h18(out3), h14), 1))
        out5 = self.h23(torch.cat((self.h21(out4), h10), 1))
        return self.detect([out3, out4, out5])


def randomize(model, seed=0):
    """He-initialized convolutions; BatchNorm scales U(0.2, 0.7) and shifts N(0, 1). A deep random SiLU net
    with unit gains is chaotic: any perturbation grows through its 60 layers, so INT8 rounding alone drove
    the outputs to cosine 0.4 with scales U(0.5, 1.5) and shifts N(0, 0.1), each op being fine on its own
    (isolated cosine >= 0.99). These values keep it in the stable regime a trained detector is in (outputs
    at cosine ~0.98 in INT8)."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.weight.data = torch.rand(m.weight.shape, generator=g) * 0.5 + 0.2
            m.bias.data = torch.randn(m.bias.shape, generator=g)
            m.running_mean = torch.randn(m.running_mean.shape, generator=g) * 0.1
            m.running_var = torch.rand(m.running_var.shape, generator=g) + 0.5
        elif isinstance(m, nn.Conv2d):
            fan_in = m.weight[0].numel()
            m.weight.data = torch.randn(m.weight.shape, generator=g) * (2.0 / fan_in) ** 0.5
            if m.bias is not None:
                m.bias.data = torch.randn(m.bias.shape, generator=g)


def normalize_batchnorms(model, size, images):
    """Sets every BatchNorm's running statistics to those of its input over a batch of photos, as training
    leaves them: each BN then normalizes natural images, and activations keep the ranges of a trained
    detector instead of growing through 60 layers of random weights (which makes any INT8 result
    meaningless). `images`: photo files, each resized to size x size (RGB, 0..1, as the flow preprocesses)."""
    import torchvision.io
    batch = []
    for path in images:
        img = torchvision.io.read_image(path, torchvision.io.ImageReadMode.RGB).float() / 255
        batch.append(torch.nn.functional.interpolate(img[None], size=(size, size), mode="bilinear",
                                                     align_corners=False)[0])
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # cumulative average over the batch
    model.train()
    with torch.no_grad():
        model(torch.stack(batch))
    model.eval()


def main():
    out = sys.argv[1]
    size = int(sys.argv[2])
    model = YoloV5s(size).eval()
    randomize(model)
    normalize_batchnorms(model, size, sys.argv[3:])
    x = torch.rand(1, 3, size, size)
    torch.onnx.export(model, x, out, opset_version=13, input_names=["images"], output_names=["output"])
    import onnx
    graph = onnx.load(out).graph
    detect = [n.output[0] for n in graph.node if n.op_type == "Conv" and any(
        i.name.startswith("detect.m.") for i in graph.initializer if i.name in n.input)]
    print(",".join(detect))


if __name__ == "__main__":
    main()
