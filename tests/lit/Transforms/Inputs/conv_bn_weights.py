"""Writes random conv + batchnorm weights (make) or checks tpuc's folded result against numpy (check)."""
import sys
import numpy as np

def make(path):
    rng = np.random.default_rng(7)
    np.savez(path,
             conv_w=rng.normal(size=(8, 3, 3, 3)).astype(np.float32),
             conv_b=rng.normal(size=(8,)).astype(np.float32),
             bn_mean=rng.normal(size=(8,)).astype(np.float32),
             bn_var=rng.uniform(0.5, 1.5, size=(8,)).astype(np.float32),
             bn_gamma=rng.uniform(0.5, 1.5, size=(8,)).astype(np.float32),
             bn_beta=rng.normal(size=(8,)).astype(np.float32))

def check(src, out):
    w = np.load(src)
    got = np.load(out)
    assert sorted(got.files) == ["conv_w_bn", "conv_w_bn_bias"], got.files
    s = w["bn_gamma"] / np.sqrt(w["bn_var"].astype(np.float64) + 1e-5)
    want_w = w["conv_w"] * s[:, None, None, None]
    want_b = (w["conv_b"] - w["bn_mean"]) * s + w["bn_beta"]
    np.testing.assert_allclose(got["conv_w_bn"], want_w, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got["conv_w_bn_bias"], want_b, rtol=1e-6, atol=1e-6)
    assert got["conv_w_bn"].dtype == np.float32
    print("folded weights match numpy")

if __name__ == "__main__":
    {"make": lambda: make(sys.argv[2]), "check": lambda: check(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
