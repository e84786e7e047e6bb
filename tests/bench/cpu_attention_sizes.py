# CPU scaled_dot_product_attention at B7's sizes ([8, 12, 512, 64] views of a qkv projection, causal, bfloat16 and
# float32): `cwb run tests/bench/cpu_attention_sizes.py` (CWB_CPU_FLASH=0 for the composite path) or `python3 ...`
# for PyTorch's CPU flash kernel. Prints one line per case: median ms and GFLOP/s of the causal half.
import time

import torch
import torch.nn.functional as F

CASES = [("bfloat16", 8, 12, 512, 64, True), ("bfloat16", 8, 12, 512, 64, False), ("float32", 8, 12, 512, 64, True),
         ("bfloat16", 1, 12, 2048, 64, True)]


def run_all():
    for name, b, h, s, e, causal in CASES:
        dtype = torch.bfloat16 if name == "bfloat16" else torch.float32
        qkv = torch.randn(b, s, 3, h, e).to(dtype).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            times.append(time.perf_counter() - start)
        times.sort()
        ms = 1000.0 * times[2]
        work = 4.0 * b * h * s * s * e / (2 if causal else 1)
        print(f"SDPA {name} {b}x{h}x{s}x{e}{' causal' if causal else ''} median_ms={ms:.3f} gflops={work / ms / 1e6:.1f}")


run_all()
