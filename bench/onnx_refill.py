#!/usr/bin/env python3
"""Moves torch.onnx exports off the lent GPU machine without their weights, and gives them seeded
weights back here (bench only). `strip IN.onnx OUT.onnx` empties every float initializer of more than
8 elements (dims and type kept, raw_data dropped: a transport file, not a valid model);
`fill IN.onnx OUT.onnx [--seed N]` fills each empty float initializer, in graph order, from numpy's
default_rng(seed): He-normal (std sqrt(2 / fan_in), fan_in = the product of dims[1:]) for rank >= 2,
uniform(-0.1, 0.1) for rank 1, so activations stay finite through 100+ layers; a BatchNormalization's
scale and variance (inputs 1 and 4, where the exporter could not fold them) uniform(0.5, 1.5). The graph is exactly
what torch.onnx wrote; only the weight values are ours, and both sides of a comparison read the same
filled file."""
import argparse
import numpy as np
import onnx
from onnx import numpy_helper

FLOAT = onnx.TensorProto.FLOAT


def n_elems(t):
    return int(np.prod(t.dims)) if len(t.dims) else 1


def strip(src, dst):
    m = onnx.load(src)
    for t in m.graph.initializer:
        if t.data_type == FLOAT and n_elems(t) > 8:
            t.ClearField("raw_data")
            t.ClearField("float_data")
    onnx.save(m, dst)


def fill(src, dst, seed):
    m = onnx.load(src)
    rng = np.random.default_rng(seed)
    positive = {n.input[i] for n in m.graph.node if n.op_type == "BatchNormalization" for i in (1, 4)}
    for t in m.graph.initializer:
        if t.data_type != FLOAT or n_elems(t) <= 8 or t.raw_data or len(t.float_data):
            continue
        dims = list(t.dims)
        if t.name in positive:
            a = rng.uniform(0.5, 1.5, dims)
        elif len(dims) >= 2:
            fan_in = int(np.prod(dims[1:]))
            a = rng.standard_normal(dims) * np.sqrt(2.0 / max(fan_in, 1))
        else:
            a = rng.uniform(-0.1, 0.1, dims)
        t.CopyFrom(numpy_helper.from_array(a.astype(np.float32), t.name))
    onnx.checker.check_model(m)
    onnx.save(m, dst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["strip", "fill"])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    strip(a.src, a.dst) if a.mode == "strip" else fill(a.src, a.dst, a.seed)


if __name__ == "__main__":
    main()
