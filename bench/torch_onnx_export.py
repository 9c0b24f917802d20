#!/usr/bin/env python3
"""Exports torchvision CNNs with torch.onnx (TorchScript exporter, opset 13, eval mode, batch 1;
bench only, run where torch is installed: the lent GPU machine). Each model is written to
DIR/NAME.onnx; a model that fails to export is reported and skipped.
usage: torch_onnx_export.py DIR NAME[:H] ...   (H: input height and width, default 224)"""
import os
import sys

import torch
import torchvision


def main(out, specs):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    for spec in specs:
        name, _, hw = spec.partition(":")
        hw = int(hw or 224)
        kw = {"aux_logits": False, "init_weights": True} if name in ("googlenet", "inception_v3") else {}
        try:
            m = getattr(torchvision.models, name)(weights=None, **kw).eval()
            x = torch.randn(1, 3, hw, hw)
            torch.onnx.export(m, (x,), os.path.join(out, name + ".onnx"), opset_version=13, dynamo=False,
                              input_names=["input"], output_names=["output"], do_constant_folding=True)
            print(f"exported {name} ({hw}x{hw})", flush=True)
        except Exception as e:  # report and go on: one model's failure is a data point
            print(f"export of {name} failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
