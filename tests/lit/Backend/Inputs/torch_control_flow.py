"""A PyTorch model with data-dependent control flow, scripted and exported by torch.onnx (its If and Loop are
the exporter's, not ours): a branch on the sign of a feature map's mean, then a residual block repeated a
number of times fed at run time. Writes the model, inputs taking each branch with 0, 1 and 3 steps, and
PyTorch's outputs for them.

    torch_control_flow.py OUT_DIR
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        nn.init.zeros_(self.conv.bias)  # conv(-x) = -conv(x): x and -x take different branches
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.conv3 = nn.Conv2d(8, 8, 1)

    def forward(self, x, n):
        y = self.conv(x)
        if bool(y.mean() > 0):
            y = torch.relu(self.conv2(y))
        else:
            y = torch.sigmoid(y) * 2.0
        h = y
        for _ in range(int(n)):
            h = torch.tanh(self.conv3(h)) + h * 0.5
        return h


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    model = torch.jit.script(Gate().eval())
    x = torch.randn(1, 3, 16, 16)
    torch.onnx.export(model, (x, torch.tensor(3)), os.path.join(out, "gate.onnx"), input_names=["x", "n"],
                      output_names=["y"], opset_version=13)
    with torch.no_grad():
        taken = bool(model.conv(x).mean() > 0)
        for name, sign, steps in [("a", 1, 3), ("b", -1, 3), ("c", 1, 0), ("d", -1, 1)]:
            xi = x * sign
            np.savez(os.path.join(out, name + ".npz"), x=xi.numpy(), n=np.array(steps, dtype=np.int64))
            np.savez(os.path.join(out, name + "_torch.npz"), y=model(xi, torch.tensor(steps)).numpy())
    print("x takes the", "then" if taken else "else", "branch, -x the other")


if __name__ == "__main__":
    main()
