"""Writes a TPU-MLIR calibration table (`op_name threshold min max`, threshold = max |x|) from an .npz of
tensors, e.g. a reference interpreter dump: a stand-in for `tpuc calibrate` with the `max` method."""
import sys

import numpy as np

tensors = np.load(sys.argv[1])
with open(sys.argv[2], "w") as out:
    out.write("# op_name threshold min max\n")
    for name in tensors.files:
        x = tensors[name].astype(np.float64)
        x = x[np.isfinite(x)]  # masks hold -inf; TPU-MLIR's statistics skip non-finite values too
        if x.size == 0:
            x = np.zeros(1)
        out.write(f"{name} {max(abs(x.min()), abs(x.max())):.7f} {x.min():.7f} {x.max():.7f}\n")
