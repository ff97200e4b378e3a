"""The tensor-name convention against numpy: `tensor_names.py make OUT` writes a torchvision-style model
(node names are scopes, the graph output is `output`) with a Dropout and an Identity removed at import,
ArgMax and TopK outputs, plus an input .npz; `tensor_names.py check OUT RESULT.npz` recomputes every
ONNX tensor with numpy and checks that the dump holds each under its ONNX name with its values."""
import sys
import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper as nh

rng = np.random.default_rng(17)
W = (rng.normal(size=(6, 4)) * 0.5).astype(np.float32)
B = (rng.normal(size=(6,)) * 0.1).astype(np.float32)
X = rng.normal(size=(2, 4)).astype(np.float32)


def make(out):
    nodes = [
        h.make_node("Relu", ["input"], ["/features/relu/Relu_output_0"], name="/features/relu/Relu"),
        h.make_node("Dropout", ["/features/relu/Relu_output_0"], ["/classifier/classifier.0/Dropout_output_0"],
                    name="/classifier/classifier.0/Dropout"),
        h.make_node("Gemm", ["/classifier/classifier.0/Dropout_output_0", "classifier.1.weight",
                             "classifier.1.bias"], ["output"], name="/classifier/classifier.1/Gemm", transB=1),
        h.make_node("ArgMax", ["output"], ["result"], name="/argmax/ArgMax", axis=1, keepdims=1),
        h.make_node("TopK", ["output", "k"], ["values", "indices"], name="/topk/TopK", axis=1),
        h.make_node("Identity", ["/features/relu/Relu_output_0"], ["feat"], name="/out/Identity"),
    ]
    inits = [nh.from_array(W, "classifier.1.weight"), nh.from_array(B, "classifier.1.bias"),
             nh.from_array(np.array([2], np.int64), "k")]
    outputs = [h.make_tensor_value_info("output", T.FLOAT, [2, 6]),
               h.make_tensor_value_info("result", T.INT64, [2, 1]),
               h.make_tensor_value_info("values", T.FLOAT, [2, 2]),
               h.make_tensor_value_info("indices", T.INT64, [2, 2]),
               h.make_tensor_value_info("feat", T.FLOAT, [2, 4])]
    graph = h.make_graph(nodes, "names", [h.make_tensor_value_info("input", T.FLOAT, [2, 4])], outputs, inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, f"{out}/names.onnx")
    np.savez(f"{out}/names_in.npz", input=X)


def check(result):
    d = np.load(result)
    relu = np.maximum(X, 0)
    output = relu @ W.T + B
    order = np.argsort(-output, axis=1, kind="stable")
    expected = {
        "input": X,
        "/features/relu/Relu_output_0": relu,
        "/classifier/classifier.0/Dropout_output_0": relu,  # the removed Dropout's alias
        "feat": relu,                                        # the removed Identity's, a graph output
        "output": output,
        "result": np.argmax(output, axis=1)[:, None],
        "values": np.take_along_axis(output, order[:, :2], axis=1),
        "indices": order[:, :2],
    }
    for name, want in expected.items():
        if name not in d.files:
            print(f"missing '{name}' in {sorted(d.files)}")
            continue
        ok = d[name].shape == want.shape and np.allclose(d[name], want, rtol=1e-5, atol=1e-6)
        print(name, "ok" if ok else f"differs: {d[name].tolist()} vs {want.tolist()}")
    # Further results keep their own names: nothing is called "<op>_1".
    print("suffixed:", [n for n in d.files if n.endswith("_1")])


if sys.argv[1] == "make":
    make(sys.argv[2])
else:
    check(sys.argv[2])
