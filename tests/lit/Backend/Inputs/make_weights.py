# Writes the weights of small.mlir (w1, w2: 16x16x3x3, w3: 10x1024, float32) to argv[1] as .npz.
import sys
import numpy as np

rng = np.random.default_rng(0)
np.savez(sys.argv[1],
         w1=rng.standard_normal((16, 16, 3, 3)).astype(np.float32),
         w2=rng.standard_normal((16, 16, 3, 3)).astype(np.float32),
         w3=rng.standard_normal((10, 1024)).astype(np.float32))
