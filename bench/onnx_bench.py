#!/usr/bin/env python3
"""ONNX import benchmark: resnet-18 and mobilenet (relay.testing's layer structure, seeded weights
and batch-norm statistics) written with the `onnx` package's helper API, run by
`autotvm evaluate MODEL.onnx` (--target arm_cpu: LLVM on this CPU; --target mali: PoCL) and by
onnxruntime on the same file and input with the same thread count: max relative output difference
and median latency. Also a resnet-50 file for bench_onnx_import (the import-time goal: < 0.5 s).

Bench only (pip install onnx onnxruntime numpy into a venv); never a project dependency. torch is
not installable on this machine, so the models are built from the helper API rather than exported
with torch.onnx; the layer structure and operator forms (Conv + BatchNormalization + Relu, MaxPool,
Add, GlobalAveragePool, Flatten, Gemm with transB, Softmax; opset 13) are the ones torch.onnx
writes for these networks.

usage: onnx_bench.py BUILD_DIR [--threads N] [--repeat R] [--out DIR] [--tophub-dir DIR] [--vta]
  --vta: resnet18_v1 (the VTA tutorials' network) as a model file on --target vta beside the zoo's.
  BUILD_DIR holds cli/autotvm and bench/bench_onnx_import (a Release build)."""
import argparse, os, re, statistics, subprocess, sys, time
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import onnxruntime as ort


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, p):
        self.n += 1
        return f"{p}_{self.n}"

    def const(self, arr):
        n = self.name("p")
        self.inits.append(numpy_helper.from_array(np.asarray(arr, dtype=np.float32), n))
        return n

    def op(self, kind, ins, **attrs):
        y = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, ins, [y], name=y, **attrs))
        return y

    def conv(self, x, cin, cout, k, s, p, groups=1):
        fan_in = cin // groups * k * k
        a = np.sqrt(6.0 / fan_in)
        w = self.const(self.rng.uniform(-a, a, (cout, cin // groups, k, k)))
        return self.op("Conv", [x, w], kernel_shape=[k, k], strides=[s, s], pads=[p] * 4, group=groups)

    def bn(self, x, c, scale=True):
        r = self.rng
        gamma = r.uniform(0.8, 1.2, c) if scale else np.ones(c)
        return self.op("BatchNormalization", [x, self.const(gamma), self.const(r.uniform(-0.1, 0.1, c)),
                                              self.const(r.uniform(-0.1, 0.1, c)), self.const(r.uniform(0.8, 1.2, c))],
                       epsilon=2e-5)

    def relu(self, x):
        return self.op("Relu", [x])

    def head(self, x, c, classes):
        g = self.op("GlobalAveragePool", [x])
        f = self.op("Flatten", [g])
        a = np.sqrt(6.0 / c)
        fc = self.op("Gemm", [f, self.const(self.rng.uniform(-a, a, (classes, c))),
                              self.const(self.rng.uniform(-0.1, 0.1, classes))], transB=1)
        return self.op("Softmax", [fc], axis=-1)


def resnet(b, depth, classes=1000):
    """relay.testing.resnet (v2, pre-activation units; bottleneck from 50 layers)."""
    units = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3]}[depth]
    bottleneck = depth >= 50
    filters = [64, 256, 512, 1024, 2048] if bottleneck else [64, 64, 128, 256, 512]
    x = b.bn("data", 3, scale=False)
    x = b.conv(x, 3, filters[0], 7, 2, 3)
    x = b.relu(b.bn(x, filters[0]))
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)
    cin = filters[0]
    for stage in range(4):
        cout = filters[stage + 1]
        for unit in range(units[stage]):
            s = 2 if stage > 0 and unit == 0 else 1
            a = b.relu(b.bn(x, cin))
            if bottleneck:
                y = b.conv(a, cin, cout // 4, 1, 1, 0)
                y = b.conv(b.relu(b.bn(y, cout // 4)), cout // 4, cout // 4, 3, s, 1)
                y = b.conv(b.relu(b.bn(y, cout // 4)), cout // 4, cout, 1, 1, 0)
            else:
                y = b.conv(a, cin, cout, 3, s, 1)
                y = b.conv(b.relu(b.bn(y, cout)), cout, cout, 3, 1, 1)
            sc = x if unit > 0 else b.conv(a, cin, cout, 1, s, 0)
            x = b.op("Add", [y, sc])
            cin = cout
    x = b.relu(b.bn(x, cin))
    return b.head(x, cin, classes)


def resnet_v1(b, depth=18, classes=1000):
    """Gluon's resnet18_v1, the network the VTA tutorials quantize (post-activation conv-BN-ReLU
    units, 1x1 strided projections; torchvision's resnet18 has the same layers): the form
    `autotvm ... --target vta` takes from a model file. The residual add is written residual +
    body, as Gluon does, so the task order is the zoo's."""
    units = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3]}[depth]
    x = b.relu(b.bn(b.conv("data", 3, 64, 7, 2, 3), 64))
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)
    cin = 64
    for stage in range(4):
        cout = 64 << stage
        for unit in range(units[stage]):
            s = 2 if stage > 0 and unit == 0 else 1
            y = b.relu(b.bn(b.conv(x, cin, cout, 3, s, 1), cout))
            y = b.bn(b.conv(y, cout, cout, 3, 1, 1), cout)
            sc = x if s == 1 and cin == cout else b.bn(b.conv(x, cin, cout, 1, s, 0), cout)
            x = b.relu(b.op("Add", [sc, y]))
            cin = cout
    g = b.op("GlobalAveragePool", [x])
    f = b.op("Flatten", [g])
    a = np.sqrt(6.0 / cin)
    return b.op("Gemm", [f, b.const(b.rng.uniform(-a, a, (classes, cin))),
                         b.const(b.rng.uniform(-0.1, 0.1, classes))], transB=1)


def mobilenet(b, classes=1000):
    """relay.testing.mobilenet (conv_block = conv without bias, batch_norm, relu)."""
    def block(x, cin, cout, k, s, p, groups=1):
        return b.relu(b.bn(b.conv(x, cin, cout, k, s, p, groups), cout))
    x = block("data", 3, 32, 3, 2, 1)
    cin = 32
    for cout, s in [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]:
        x = block(x, cin, cin, 3, s, 1, groups=cin)
        x = block(x, cin, cout, 1, 1, 0)
        cin = cout
    return b.head(x, cin, classes)


def build(fn, path, seed):
    b = Builder(seed)
    out = fn(b)
    g = helper.make_graph(b.nodes, os.path.basename(path), [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 224, 224])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], b.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.checker.check_model(m)
    onnx.save(m, path)


def ort_run(path, x, threads, repeat):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feed = {sess.get_inputs()[0].name: x}
    for _ in range(3):
        y = sess.run(None, feed)[0]
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sess.run(None, feed)
        ts.append((time.perf_counter() - t0) * 1e3)
    return y, statistics.median(ts)


def autotvm_run(build_dir, path, target, xpath, ypath, threads, repeat, extra):
    cmd = [os.path.join(build_dir, "cli", "autotvm"), "evaluate", path, "--target", target, "--input", xpath,
           "--save-output", ypath, "--repeat", str(repeat), "--check"] + extra
    if target == "arm_cpu":
        cmd += ["--threads", str(threads)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    m = re.search(r"median wall ([0-9.]+) ms", p.stderr)
    chk = re.search(r"Output check: (.*)", p.stdout)
    return np.load(ypath), float(m.group(1)), chk.group(1) if chk else "-", wall


def vta_run(build_dir, network, xpath, ypath, repeat, extra):
    cmd = [os.path.join(build_dir, "cli", "autotvm"), "evaluate", network, "--target", "vta", "--input", xpath,
           "--save-output", ypath, "--repeat", str(repeat), "--check"] + extra
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    m = re.search(r"Mean inference time \(std dev\): ([0-9.]+) ms", p.stdout)
    v = re.search(r"VTA \(simulated, \d+ layers\): ([0-9.]+) ms .*; CPU \(measured\): ([0-9.]+) ms", p.stdout)
    chk = re.search(r"Output check: ([a-zA-Z-]+)", p.stdout)
    return np.load(ypath), float(m.group(1)), float(v.group(1)), float(v.group(2)), chk.group(1)


def vta_main(a, extra):
    """resnet18_v1 written as a model file, through `autotvm evaluate MODEL.onnx --target vta`
    beside the zoo's resnet-18 (the same layer structure, its own synthetic weights): simulated
    VTA time, measured CPU time, and the int8 network's logits beside onnxruntime's float ones."""
    path = os.path.join(a.out, "resnet18_v1.onnx")
    build(lambda b: resnet_v1(b, 18), path, seed=0)
    x = np.random.default_rng(1).uniform(0, 1, (1, 3, 224, 224)).astype(np.float32)
    xpath = os.path.join(a.out, "x01.npy")
    np.save(xpath, x)
    y_ort, ms_ort = ort_run(path, x, a.threads, a.repeat)
    print(f"onnx {onnx.__version__}, onnxruntime {ort.__version__}; means of {a.repeat} runs")
    print(f"resnet18_v1.onnx onnxruntime CPU (float)   median {ms_ort:8.2f} ms")
    for name, net in [("resnet-18 (zoo)", "resnet-18"), ("resnet18_v1.onnx", path)]:
        y, mean, vta, cpu, chk = vta_run(a.build_dir, net, xpath, os.path.join(a.out, "y_vta.npy"), a.repeat, extra)
        line = f"{name:17s} --target vta  mean {mean:8.2f} ms = VTA simulated {vta:8.2f} + CPU {cpu:6.2f}; check {chk}"
        if net == path:
            d = np.abs(y - y_ort).max() / np.abs(y_ort).max()
            same = int(np.argmax(y) == np.argmax(y_ort))
            line += f"; int8 vs onnxruntime float: max |diff| / max |ort| {d:.2e}, same top-1: {bool(same)}"
        print(line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_dir")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--out", default="/tmp/onnx_bench")
    ap.add_argument("--tophub-dir", default=None)
    ap.add_argument("--targets", default="arm_cpu,mali")
    ap.add_argument("--vta", action="store_true", help="resnet18_v1 imported beside the zoo's resnet-18 on VTA")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    extra = ["--tophub-dir", a.tophub_dir] if a.tophub_dir else ["--no-tophub"]
    if a.vta:
        return vta_main(a, extra)
    models = {"resnet-18": lambda b: resnet(b, 18), "mobilenet": mobilenet}
    x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    xpath = os.path.join(a.out, "x.npy")
    np.save(xpath, x)
    print(f"onnx {onnx.__version__}, onnxruntime {ort.__version__}, {a.threads} threads, medians of {a.repeat} runs")
    for name, fn in models.items():
        path = os.path.join(a.out, f"{name}.onnx")
        build(fn, path, seed=0)
        y_ort, ms_ort = ort_run(path, x, a.threads, a.repeat)
        print(f"{name:10s} onnxruntime CPU            median {ms_ort:8.2f} ms")
        for target in a.targets.split(","):
            ypath = os.path.join(a.out, f"{name}.{target}.npy")
            y, ms, chk, wall = autotvm_run(a.build_dir, path, target, xpath, ypath, a.threads, a.repeat, extra)
            scale = np.abs(y_ort).max()
            d = np.abs(y - y_ort)
            big = np.abs(y_ort) > 1e-3 * scale
            print(f"{name:10s} autotvm --target {target:8s} median {ms:8.2f} ms  (whole command {wall:.1f} s)  "
                  f"max |diff| / max |ort| {d.max() / scale:.2e}, max elementwise rel {(d[big] / np.abs(y_ort[big])).max():.2e}; "
                  f"check: {chk}")
    path = os.path.join(a.out, "resnet-50.onnx")
    build(lambda b: resnet(b, 50), path, seed=0)
    print(f"resnet-50: {os.path.getsize(path) / 1e6:.1f} MB")
    p = subprocess.run([os.path.join(a.build_dir, "bench", "bench_onnx_import"), path, "20"], capture_output=True, text=True)
    print(p.stdout.strip() or p.stderr.strip())


if __name__ == "__main__":
    main()
