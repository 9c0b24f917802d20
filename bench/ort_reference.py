#!/usr/bin/env python3
"""Reference-framework peer for bench_network: resnet-18 (v2, pre-activation, as relay.testing)
and mobilenet v1 built as ONNX graphs with random weights, timed with onnxruntime on the CPU.
PyPI side-by-side peer only (pip install onnx onnxruntime numpy); never a product dependency."""
import statistics, sys, time
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime as ort

rng = np.random.default_rng(0)
nodes, inits = [], []
counter = [0]

def name(p):
    counter[0] += 1
    return f"{p}{counter[0]}"

def const(arr):
    n = name("w")
    inits.append(numpy_helper.from_array(arr.astype(np.float32), n))
    return n

def conv(x, cin, cout, k, s, p, groups=1, bias=True):
    w = const(rng.standard_normal((cout, cin // groups, k, k)) * 0.05)
    ins = [x, w] + ([const(rng.standard_normal(cout) * 0.01)] if bias else [])
    y = name("c")
    nodes.append(helper.make_node("Conv", ins, [y], kernel_shape=[k, k], strides=[s, s], pads=[p] * 4, group=groups))
    return y

def bn_relu(x, c):
    y = name("b")
    nodes.append(helper.make_node("BatchNormalization", [x, const(np.ones(c)), const(np.zeros(c)),
                                                         const(np.zeros(c)), const(np.ones(c))], [y]))
    z = name("r")
    nodes.append(helper.make_node("Relu", [y], [z]))
    return z

def add(a, b):
    y = name("a")
    nodes.append(helper.make_node("Add", [a, b], [y]))
    return y

def head(x, c, classes=1000):
    g = name("g"); nodes.append(helper.make_node("GlobalAveragePool", [x], [g]))
    f = name("f"); nodes.append(helper.make_node("Flatten", [g], [f]))
    o = "out"; nodes.append(helper.make_node("Gemm", [f, const(rng.standard_normal((classes, c)) * 0.05),
                                                        const(np.zeros(classes))], [o], transB=1))
    return o

def resnet18():
    x = conv("data", 3, 64, 7, 2, 3)
    x = bn_relu(x, 64)
    m = name("m"); nodes.append(helper.make_node("MaxPool", [x], [m], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4))
    x, cin = m, 64
    for stage, cout in enumerate([64, 128, 256, 512]):
        for unit in range(2):
            s = 2 if stage > 0 and unit == 0 else 1
            a = bn_relu(x, cin)  # pre-activation unit (resnet v2)
            y = conv(a, cin, cout, 3, s, 1)
            y = bn_relu(y, cout)
            y = conv(y, cout, cout, 3, 1, 1)
            sc = conv(a, cin, cout, 1, s, 0) if (s != 1 or cin != cout) else x
            x, cin = add(y, sc), cout
    return head(bn_relu(x, 512), 512)

def mobilenet():
    x = bn_relu(conv("data", 3, 32, 3, 2, 1), 32)
    cin = 32
    for cout, s in [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]:
        x = bn_relu(conv(x, cin, cin, 3, s, 1, groups=cin), cin)
        x = bn_relu(conv(x, cin, cout, 1, 1, 0), cout)
        cin = cout
    return head(x, 1024)

def build(fn):
    nodes.clear(); inits.clear()
    out = fn()
    g = helper.make_graph(nodes, fn.__name__, [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 224, 224])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)

threads = int(sys.argv[1]) if len(sys.argv) > 1 else 0
for fn in (resnet18, mobilenet):
    model = build(fn)
    so = ort.SessionOptions()
    if threads: so.intra_op_num_threads = threads
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    x = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
    for _ in range(5): sess.run(None, {"data": x})
    ts = []
    for _ in range(20):
        t0 = time.perf_counter(); sess.run(None, {"data": x}); ts.append((time.perf_counter() - t0) * 1e3)
    print(f"onnxruntime {ort.__version__} CPU {fn.__name__} batch 1 224: median {statistics.median(ts):.2f} ms "
          f"(min {min(ts):.2f})")
