# CPU matrix products by size, for choosing between oneDNN and OpenBLAS (linalg.cpp's cpuGemmLibrary):
# `CWB_CPU_GEMM=openblas cwb run tests/bench/cpu_matmul_sizes.py` against `CWB_CPU_GEMM=onednn ...` (or
# `python3 tests/bench/cpu_matmul_sizes.py` for PyTorch). Prints one line per product: median ms and GFLOP/s.
import time

import torch

SHAPES = [  # (dtype, batch, m, k, n), with "t" after them: b given as the transposed view of an [n, k] (F.linear's weight)
    ("float32", 1, 8, 256, 256), ("float32", 1, 32, 32, 32), ("float32", 1, 64, 64, 64), ("float32", 1, 96, 96, 96),
    ("float32", 1, 128, 128, 128), ("float32", 1, 192, 192, 192), ("float32", 1, 256, 256, 256),
    ("float32", 1, 512, 512, 512), ("float32", 1, 1024, 1024, 1024), ("float32", 1, 8192, 1024, 4096),
    ("float32", 96, 512, 64, 512), ("bfloat16", 1, 8, 256, 256), ("bfloat16", 1, 4096, 768, 2304),
    ("bfloat16", 96, 512, 64, 512), ("bfloat16", 96, 512, 512, 64),
    ("bfloat16", 1, 4096, 768, 2304, "t"), ("bfloat16", 1, 4096, 768, 768, "t"), ("bfloat16", 1, 4096, 768, 3072, "t"),
    ("bfloat16", 1, 4096, 3072, 768, "t"), ("bfloat16", 96, 512, 64, 512, "t"), ("float32", 1, 8192, 1024, 4096, "t"),
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


def run_all():
    for shape in SHAPES:
        name, batch, m, k, n = shape[0], shape[1], shape[2], shape[3], shape[4]
        transposed = len(shape) > 5
        dtype = torch.bfloat16 if name == "bfloat16" else torch.float32
        if batch == 1:
            a, fn = torch.randn(m, k).to(dtype), torch.mm
            b = torch.randn(n, k).to(dtype).t() if transposed else torch.randn(k, n).to(dtype)
        else:
            a, fn = torch.randn(batch, m, k).to(dtype), torch.bmm
            b = torch.randn(batch, n, k).to(dtype).transpose(1, 2) if transposed else torch.randn(batch, k, n).to(dtype)
        work = 2.0 * batch * m * k * n
        iters = 5 if work > 1e10 else 20 if work > 1e8 else 200
        ms = median_ms(fn, a, b, iters)
        print(f"MM {name} {batch}x{m}x{k}x{n}{'t' if transposed else ''} median_ms={ms:.4f} gflops={work / ms / 1e6:.1f}")


run_all()
