# CPU matrix products by size, for choosing between oneDNN and OpenBLAS (linalg.cpp's cpuGemmLibrary):
# `CWB_CPU_GEMM=openblas cwb run tests/bench/cpu_matmul_sizes.py` against `CWB_CPU_GEMM=onednn ...` (or
# `python3 tests/bench/cpu_matmul_sizes.py` for PyTorch). Prints one line per product: median ms and GFLOP/s.
import time

import torch

SHAPES = [  # (dtype, batch, m, k, n)
    ("float32", 1, 8, 256, 256), ("float32", 1, 32, 32, 32), ("float32", 1, 64, 64, 64), ("float32", 1, 96, 96, 96),
    ("float32", 1, 128, 128, 128), ("float32", 1, 192, 192, 192), ("float32", 1, 256, 256, 256),
    ("float32", 1, 512, 512, 512), ("float32", 1, 1024, 1024, 1024), ("float32", 1, 8192, 1024, 4096),
    ("float32", 96, 512, 64, 512), ("bfloat16", 1, 8, 256, 256), ("bfloat16", 1, 4096, 768, 2304),
    ("bfloat16", 96, 512, 64, 512), ("bfloat16", 96, 512, 512, 64),
]


def median_ms(fn, a, b, iters):
    fn(a, b)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn(a, b)
        times.append(time.perf_counter() - start)
    times.sort()
    return 1000.0 * times[len(times) // 2]


def main():
    for name, batch, m, k, n in SHAPES:
        dtype = torch.bfloat16 if name == "bfloat16" else torch.float32
        if batch == 1:
            a, b, fn = torch.randn(m, k).to(dtype), torch.randn(k, n).to(dtype), torch.mm
        else:
            a, b, fn = torch.randn(batch, m, k).to(dtype), torch.randn(batch, k, n).to(dtype), torch.bmm
        work = 2.0 * batch * m * k * n
        iters = 5 if work > 1e10 else 20 if work > 1e8 else 200
        ms = median_ms(fn, a, b, iters)
        print(f"MM {name} {batch}x{m}x{k}x{n} median_ms={ms:.4f} gflops={work / ms / 1e6:.1f}")


main()
