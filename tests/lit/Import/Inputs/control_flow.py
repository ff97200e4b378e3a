#!/usr/bin/python3
"""ONNX If and Loop whose branch or number of steps is chosen at run time, for top.if / top.loop:
`control_flow.py DIR`. Writes, each with input files for ONNX Runtime to be the reference of:

  if.onnx      an If on a fed boolean; each branch a few ops on outer values (a graph input and a tensor
               computed before the If), the then branch also reads a weight. t.npz / f.npz take each branch.
  trips.onnx   a Loop whose trip count is a graph input (no condition), reading an outer tensor every step.
               n0.npz / n1.npz / n5.npz run 0, 1 and 5 steps.
  while.onnx   a Loop without trip count whose exit condition the body computes (halve until below 1),
               counting its steps. w5.npz takes 5 steps, w0.npz none.
  nested.onnx  a Loop with a fed trip count whose body holds an If on the carried value, which reads the
               step number, the carried value and an outer tensor. nest.npz runs 4 steps.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def value(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name], name=name + "_node", value=numpy_helper.from_array(array, name))


def save(graph, name):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name))


# If: y = cond ? relu(x @ W) + tx : sigmoid(x * x - tx), with tx = tanh(x) computed before the If.
then_graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["t_mm"], name="then_matmul"),
     helper.make_node("Relu", ["t_mm"], ["t_relu"], name="then_relu"),
     helper.make_node("Add", ["t_relu", "tx"], ["t_out"], name="then_add")],
    "then_body", [], [value("t_out", F, [2, 3])])
else_graph = helper.make_graph(
    [helper.make_node("Mul", ["x", "x"], ["e_sq"], name="else_square"),
     helper.make_node("Sub", ["e_sq", "tx"], ["e_sub"], name="else_sub"),
     helper.make_node("Sigmoid", ["e_sub"], ["e_out"], name="else_sigmoid")],
    "else_body", [], [value("e_out", F, [2, 3])])
w = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0) / 4.0
save(helper.make_graph(
    [helper.make_node("Tanh", ["x"], ["tx"], name="outer_tanh"),
     helper.make_node("If", ["c"], ["y"], name="branch", then_branch=then_graph, else_branch=else_graph),
     helper.make_node("Mul", ["y", "tx"], ["z"], name="after")],
    "runtime_if", [value("c", B, [1]), value("x", F, [2, 3])], [value("y", F, [2, 3]), value("z", F, [2, 3])],
    [numpy_helper.from_array(w, "W")]), "if.onnx")
x = np.array([[-1.5, 0.25, 2.0], [0.5, -0.75, 1.25]], np.float32)
np.savez(os.path.join(out, "t.npz"), c=np.array([True]), x=x)
np.savez(os.path.join(out, "f.npz"), c=np.array([False]), x=x)

# Loop with a fed trip count: v <- v * 0.5 + b, b an outer tensor read every step.
body = helper.make_graph(
    [const("half", np.array(0.5, np.float32)),
     helper.make_node("Mul", ["v_in", "half"], ["v_half"], name="body_mul"),
     helper.make_node("Add", ["v_half", "b"], ["v_out"], name="body_add"),
     helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond")],
    "trips_body", [value("iter", I64, []), value("cond_in", B, []), value("v_in", F, [1, 4])],
    [value("cond_out", B, []), value("v_out", F, [1, 4])])
save(helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["v"], name="repeat", body=body),
     helper.make_node("Relu", ["v"], ["r"], name="after_loop")],
    "runtime_trips", [value("n", I64, []), value("x", F, [1, 4]), value("b", F, [1, 4])],
    [value("r", F, [1, 4])]), "trips.onnx")
x4 = np.array([[3.0, -2.0, 0.5, 8.0]], np.float32)
b4 = np.array([[0.25, 1.0, -0.5, 0.125]], np.float32)
for n in (0, 1, 5):
    np.savez(os.path.join(out, "n%d.npz" % n), n=np.array(n, np.int64), x=x4, b=b4)

# Loop without a trip count: halve v while max|v| >= 1, counting the steps.
body = helper.make_graph(
    [const("w_half", np.array(0.5, np.float32)), const("w_one", np.array(1.0, np.float32)),
     helper.make_node("Mul", ["wv_in", "w_half"], ["wv_out"], name="halve"),
     helper.make_node("Add", ["wk_in", "w_one"], ["wk_out"], name="count"),
     helper.make_node("Abs", ["wv_out"], ["w_abs"], name="w_abs_node"),
     helper.make_node("ReduceMax", ["w_abs"], ["w_max"], name="w_max_node", keepdims=0),
     helper.make_node("GreaterOrEqual", ["w_max", "w_one"], ["w_more"], name="more")],
    "while_body", [value("w_iter", I64, []), value("w_cond", B, []), value("wv_in", F, [1, 4]),
                   value("wk_in", F, [])],
    [value("w_more", B, []), value("wv_out", F, [1, 4]), value("wk_out", F, [])])
save(helper.make_graph(
    [const("one", np.array(1.0, np.float32)), const("zero", np.array(0.0, np.float32)),
     helper.make_node("Abs", ["x"], ["x_abs"], name="start_abs"),
     helper.make_node("ReduceMax", ["x_abs"], ["x_max"], name="start_max", keepdims=0),
     helper.make_node("GreaterOrEqual", ["x_max", "one"], ["go"], name="start"),
     helper.make_node("Loop", ["", "go", "x", "zero"], ["h", "steps"], name="halving", body=body)],
    "runtime_while", [value("x", F, [1, 4])], [value("h", F, [1, 4]), value("steps", F, [])]), "while.onnx")
np.savez(os.path.join(out, "w5.npz"), x=np.array([[3.0, -20.0, 5.0, 0.5]], np.float32))
np.savez(os.path.join(out, "w0.npz"), x=np.array([[0.25, -0.5, 0.75, 0.125]], np.float32))

# An If inside a Loop body: s <- sum(s) > 0 ? s * 0.5 - b : s + step, b outer, step the iteration number.
then_graph = helper.make_graph(
    [const("n_half", np.array(0.5, np.float32)),
     helper.make_node("Mul", ["s_in", "n_half"], ["n_scaled"], name="n_then_mul"),
     helper.make_node("Sub", ["n_scaled", "b"], ["n_then"], name="n_then_sub")],
    "nested_then", [], [value("n_then", F, [1, 4])])
else_graph = helper.make_graph(
    [helper.make_node("Cast", ["s_iter"], ["n_step"], name="n_cast", to=F),
     helper.make_node("Add", ["s_in", "n_step"], ["n_else"], name="n_else_add")],
    "nested_else", [], [value("n_else", F, [1, 4])])
body = helper.make_graph(
    [const("n_zero", np.array(0.0, np.float32)),
     helper.make_node("ReduceSum", ["s_in"], ["n_sum"], name="n_sum_node", keepdims=0),
     helper.make_node("Greater", ["n_sum", "n_zero"], ["n_pos"], name="n_pos_node"),
     helper.make_node("If", ["n_pos"], ["s_out"], name="inner_if", then_branch=then_graph,
                      else_branch=else_graph),
     helper.make_node("Identity", ["s_cond"], ["s_cond_out"], name="n_cond")],
    "nested_body", [value("s_iter", I64, []), value("s_cond", B, []), value("s_in", F, [1, 4])],
    [value("s_cond_out", B, []), value("s_out", F, [1, 4])])
save(helper.make_graph(
    [helper.make_node("Loop", ["n", "", "x"], ["s"], name="outer_loop", body=body)],
    "nested", [value("n", I64, []), value("x", F, [1, 4]), value("b", F, [1, 4])], [value("s", F, [1, 4])]),
    "nested.onnx")
np.savez(os.path.join(out, "nest.npz"), n=np.array(4, np.int64), x=np.array([[1.0, -0.5, 2.0, 0.25]], np.float32),
         b=np.array([[2.0, 1.0, 3.0, 0.5]], np.float32))
