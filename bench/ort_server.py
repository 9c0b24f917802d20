#!/usr/bin/env python3
"""onnxruntime as a peer that runs on request, for bench_ort_paired (PyPI side-by-side peer only;
never a product dependency). It loads MODEL.onnx on the CPU with THREADS intra-op threads, feeds
the float32 input of INPUT.npy (written first when missing: seeded normal values, as
onnx_models.py makes them), warms up, prints "ready", then for each line N read from stdin
runs the model N times and prints the N wall times in ms on one line. Ends at end of input.
usage: ort_server.py MODEL.onnx THREADS INPUT.npy [--no-spin]"""
import os
import sys
import time

import numpy as np
import onnxruntime as ort


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    model, threads, xp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    if "--no-spin" in sys.argv[4:]:
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    if not os.path.exists(xp):
        np.save(xp, np.random.default_rng(1).standard_normal(shape).astype(np.float32))
    x = np.load(xp).astype(np.float32).reshape(shape)
    feed = {inp.name: x}
    for _ in range(3):
        sess.run(None, feed)
    print("ready", flush=True)
    for line in sys.stdin:
        ts = []
        for _ in range(int(line)):
            t = time.perf_counter()
            sess.run(None, feed)
            ts.append((time.perf_counter() - t) * 1e3)
        print(" ".join(f"{t:.4f}" for t in ts), flush=True)


if __name__ == "__main__":
    main()
