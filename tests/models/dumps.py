"""Tensor-by-tensor equality of a model-file dump (tpuc run --dump_all_tensors, deploy's
*_model_outputs.npz) with the Tpu simulation's dump, with numpy alone. The NaN with payload 0x7fc0dead
(cmdsim::kNotComputedBits) in the model dump marks elements of an intermediate that no command computed (no
reader needs them); they are left out, every other element must be bit-equal, so a kernel writing any
other NaN fails. Also the one way these checks run the CLI."""
import subprocess

import numpy as np

# cmdsim::kNotComputedBits: the dump's mark of a cell no command computed.
NOT_COMPUTED_BITS = np.uint32(0x7FC0DEAD)


def run(args, cwd):
    """Runs a command in `cwd`; returns (exit code, stdout and stderr together)."""
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def compare_dumps(model_path, tpu_path):
    """Returns (compared, unequal names, names missing from the model dump, partly computed names)."""
    model, tpu = np.load(model_path), np.load(tpu_path)
    unequal, missing, partial = [], [], []
    for name in tpu.files:
        if name not in model.files:
            missing.append(name)
            continue
        a, b = model[name], tpu[name].astype(np.float32)
        computed = a.view(np.uint32) != NOT_COMPUTED_BITS
        if not computed.all():
            partial.append(name)
        if a.shape != b.shape or not computed.any() or not np.array_equal(a[computed], b[computed]):
            unequal.append(name)
    return len(tpu.files), unequal, missing, partial
