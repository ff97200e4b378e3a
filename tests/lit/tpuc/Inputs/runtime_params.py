"""Parameters fed at run time, against numpy: `runtime_params.py make OUT` writes a model whose Reshape
shape, Unsqueeze axes, TopK K, Tile repeats and Expand shape are graph inputs (their values implied by the
declared static shapes), a Trilu with k, a Range with start and delta, integer Mod (both signs
conventions) and Div, all fed at run time, plus an input .npz; `runtime_params.py check OUT.npz` recomputes
every output with numpy."""
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h

rng = np.random.default_rng(23)
FEEDS = {
    "x": rng.normal(size=(2, 3, 4)).astype(np.float32),
    "shape": np.array([4, -1], np.int64),
    "axes": np.array([0, 3], np.int64),
    "k": np.array([2], np.int64),
    "repeats": np.array([1, 2, 1], np.int64),
    "target": np.array([2, 2, 3, 4], np.int64),
    "diag": np.array(-1, np.int64),
    "start": np.array(3, np.int32),
    "limit": np.array(-9, np.int32),
    "delta": np.array(-4, np.int32),
    "a": np.array([7, -7, 9, -9, 13, 0], np.int64),
    "b": np.array([3, 3, -4, -4, 5, 2], np.int64),
}


def make(out):
    nodes = [
        h.make_node("Reshape", ["x", "shape"], ["reshaped"]),
        h.make_node("Unsqueeze", ["x", "axes"], ["unsqueezed"]),
        h.make_node("TopK", ["x", "k"], ["values", "indices"], axis=2),
        h.make_node("Tile", ["x", "repeats"], ["tiled"]),
        h.make_node("Expand", ["x", "target"], ["expanded"]),
        h.make_node("Trilu", ["x", "diag"], ["upper"]),
        h.make_node("Range", ["start", "limit", "delta"], ["range"]),
        h.make_node("Mod", ["a", "b"], ["mod"]),
        h.make_node("Mod", ["a", "b"], ["fmod"], fmod=1),
        h.make_node("Div", ["a", "b"], ["quotient"]),
    ]
    dtype = {np.dtype(np.float32): T.FLOAT, np.dtype(np.int64): T.INT64, np.dtype(np.int32): T.INT32}
    inputs = [h.make_tensor_value_info(n, dtype[v.dtype], v.shape) for n, v in FEEDS.items()]
    want = expected()
    outputs = [h.make_tensor_value_info(n, dtype[v.dtype], v.shape) for n, v in want.items()]
    graph = h.make_graph(nodes, "runtime_params", inputs, outputs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, f"{out}/params.onnx")
    np.savez(f"{out}/params_in.npz", **FEEDS)


def expected():
    x, a, b = FEEDS["x"], FEEDS["a"], FEEDS["b"]
    order = np.argsort(-x, axis=2, kind="stable")[:, :, :2]
    return {
        "reshaped": x.reshape(4, -1),
        "unsqueezed": x[None, :, :, None, :],
        "values": np.take_along_axis(x, order, axis=2),
        "indices": order.astype(np.int64),
        "tiled": np.tile(x, (1, 2, 1)),
        "expanded": np.broadcast_to(x, (2, 2, 3, 4)).copy(),
        "upper": np.triu(x, -1),
        "range": np.arange(3, -9, -4, dtype=np.int32),
        "mod": np.mod(a, b),
        "fmod": np.fmod(a, b),
        "quotient": (np.trunc(a / b)).astype(np.int64),
    }


if sys.argv[1] == "make":
    make(sys.argv[2])
else:
    d = np.load(sys.argv[2])
    for name, want in expected().items():
        got = d[name] if name in d.files else None
        ok = got is not None and got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-6)
        print(name, "ok" if ok else f"differs: {None if got is None else got.tolist()} vs {want.tolist()}")
