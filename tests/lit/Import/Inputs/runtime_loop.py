#!/usr/bin/python3
"""A torch.jit.script'ed while loop with a data-dependent exit and a data-dependent if, exported to ONNX
(Loop with PyTorch's unbounded trip count and a condition computed in the body, then an If on data), with
inputs and the PyTorch reference: `runtime_loop.py DIR`. Writes halve.onnx, in.npz / ref.npz (5 steps,
then the else branch), in2.npz / ref2.npz (no step, then branch), big.npz / big_ref.npz (10 steps)."""
import os
import sys

import numpy as np
import torch


class Halve(torch.nn.Module):
    def forward(self, x):
        # Halves x until its largest magnitude drops below 1, counting the steps; the sign of the sum picks
        # whether the count is added or subtracted.
        n = torch.zeros(1)
        while bool(x.abs().max() >= 1.0):
            x = x * 0.5
            n = n + 1.0
        if bool(x.sum() > 0):
            y = x + n
        else:
            y = x - n
        return y, n


out = sys.argv[1]
m = torch.jit.script(Halve())
inputs = {"in": [[3.0, -20.0, 5.0, 0.5]], "in2": [[0.25, -0.5, 0.75, 0.125]], "big": [[600.0, 1.0, 2.0, 3.0]]}
for name, value in inputs.items():
    x = torch.tensor(value)
    np.savez(os.path.join(out, name + ".npz"), x=x.numpy())
    y, n = m(x)
    ref = "big_ref" if name == "big" else name.replace("in", "ref")
    np.savez(os.path.join(out, ref + ".npz"), y=y.numpy(), n=n.numpy())
torch.onnx.export(m, (torch.tensor(inputs["in"]),), os.path.join(out, "halve.onnx"), input_names=["x"],
                  output_names=["y", "n"], opset_version=13)
