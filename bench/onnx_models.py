#!/usr/bin/env python3
"""torch.onnx exports of torchvision CNNs (bench/torch_onnx_export.py, seeded weights from
onnx_refill.py fill) through `autotvm evaluate MODEL.onnx`, beside onnxruntime on the CPU (the
reference output, and its latency with the same threads) and, with --torch-gpu, PyTorch eager on the
GPU (bench only). For each DIR/NAME.onnx: the max relative output difference against onnxruntime on
the same seeded input, our mean latency (TVM's line) and median, and the peers' median.
usage: onnx_models.py AUTOTVM DIR NAME ... [--target opencl|llvm|mali|arm_cpu] [--device D]
                      [--threads N] [--log FILE] [--graph-log FILE] [--tophub-dir D] [--torch-gpu]"""
import argparse
import os
import re
import statistics
import subprocess
import time

import numpy as np
import onnxruntime as ort


def torch_ms(name, hw):
    import torch
    import torchvision
    kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
    m = getattr(torchvision.models, name)(weights=None, **kw).eval().cuda()
    x = torch.randn(1, 3, hw, hw, device="cuda")
    ts = []
    with torch.no_grad():
        for i in range(120):
            t = time.perf_counter()
            m(x)
            torch.cuda.synchronize()
            if i >= 20:
                ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("autotvm")
    ap.add_argument("dir")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--tophub-dir", default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--target", default="opencl")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--log", default=None)
    ap.add_argument("--graph-log", default=None, help="a graph tuner's output (evaluate --graph-log)")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--torch-gpu", action="store_true")
    a = ap.parse_args()
    for name in a.names:
        path = os.path.join(a.dir, name + ".onnx")
        if not os.path.exists(path):
            print(f"{name:20s} no model (export failed)", flush=True)
            continue
        so = ort.SessionOptions()
        so.intra_op_num_threads = a.threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        shape = [d if isinstance(d, int) else 1 for d in sess.get_inputs()[0].shape]
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        xp, yp = path + ".x.npy", path + ".y.npy"
        np.save(xp, x)
        feed = {sess.get_inputs()[0].name: x}
        ref = sess.run(None, feed)[0]
        ts = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            sess.run(None, feed)
            ts.append((time.perf_counter() - t) * 1e3)
        ort_ms = statistics.median(ts)
        cmd = [a.autotvm, "evaluate", path, "--target", a.target, "--input", xp, "--save-output", yp,
               "--repeat", str(a.repeat), "--check"]
        if a.device:
            cmd += ["--device", a.device]
        if a.target in ("llvm", "arm_cpu"):
            cmd += ["--threads", str(a.threads)]
        if a.log:
            cmd += ["--log", a.log]
        if a.graph_log:
            cmd += ["--graph-log", a.graph_log]
        if a.tophub_dir:
            cmd += ["--tophub-dir", a.tophub_dir]
        t = time.time()
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        wall = time.time() - t
        out = r.stdout + r.stderr
        mm = re.search(r"Mean inference time \(std dev\): ([0-9.]+) ms", out)
        if r.returncode != 0 or not mm:
            line = [l for l in out.splitlines() if "error" in l] or out.splitlines()[-1:]
            print(f"{name:20s} autotvm failed (rc {r.returncode}): {line[0][:300] if line else ''}", flush=True)
            continue
        y = np.load(yp).reshape(ref.shape)
        rel = float(np.max(np.abs(y - ref)) / max(float(np.max(np.abs(ref))), 1e-30))
        chk = "check ok" if "matches the reference" in out else "check ?"
        peer = f"onnxruntime CPU ({a.threads} threads) {ort_ms:8.3f} ms"
        if a.torch_gpu:
            peer += f"  torch eager GPU {torch_ms(name, shape[2]):8.3f} ms"
        md = re.search(r"median wall ([0-9.]+) ms", out)
        med = f" (median {float(md.group(1)):.3f})" if md else ""
        print(f"{name:20s} ours {float(mm.group(1)):8.3f} ms{med}  {peer}  max|diff|/max|ort| {rel:.2e}"
              f"  {chk}  (evaluate {wall:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
