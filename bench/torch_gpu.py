"""PyTorch's figures beside ours on the lent GPU (bench only, never a test): torchvision models,
batch 1 fp32, cudnn.benchmark on; eager and a captured CUDA graph; medians of 200 runs after 20
warm-ups. Usage: python3 torch_gpu.py resnet18 mobilenet_v2 vgg16 [mobilenet_v1 is not in
torchvision: ours is relay.testing's mobilenet v1, theirs v2 -- say so when quoting]."""
import statistics
import sys
import time

import torch
import torchvision


def timeit(fn, n=200):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main(names):
    torch.backends.cudnn.benchmark = True
    x = torch.randn(1, 3, 224, 224, device="cuda")
    for name in names:
        m = getattr(torchvision.models, name)().eval().cuda()
        with torch.no_grad():
            eager = timeit(lambda: m(x))
            g = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    m(x)
            torch.cuda.current_stream().wait_stream(s)
            with torch.cuda.graph(g):
                m(x)
            graph = timeit(lambda: g.replay())
        print(f"pytorch {torch.__version__} {name} b1 fp32 on {torch.cuda.get_device_name()}: "
              f"eager {eager:.3f} ms, cuda graph {graph:.3f} ms (medians of 200)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["resnet18", "mobilenet_v2", "vgg16"])
