# CPU scaled_dot_product_attention at B7's sizes ([8, 12, 512, 64] views of a qkv projection, causal, bfloat16 and
# float32): `cwb run tests/bench/cpu_attention_sizes.py` (CWB_CPU_FLASH=0 for the composite path, CWB_CPU_AMX=0
# for the vdpbf16ps path on an AMX host) or `python3 ...` for PyTorch's CPU flash kernel. Prints one line per case:
# min and median ms of 20 calls and GFLOP/s of the min over the products' multiply-adds (the causal half).
import time

import torch
import torch.nn.functional as F

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"
CASES = [("bfloat16", 8, 12, 512, 64, True), ("bfloat16", 8, 12, 512, 64, False), ("bfloat16", 1, 12, 2048, 64, True),
         ("float32", 8, 12, 512, 64, True)]


def run_all():
    for name, b, h, s, e, causal in CASES:
        dtype = torch.bfloat16 if name == "bfloat16" else torch.float32
        qkv = torch.randn(b, s, 3, h, e).to(dtype).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        for _ in range(3):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        times = []
        for _ in range(20):
            start = time.perf_counter()
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            times.append(time.perf_counter() - start)
        times.sort()
        work = 4.0 * b * h * s * s * e / (2 if causal else 1)
        print(f"SDPA {IMPL} {name} {b}x{h}x{s}x{e}{' causal' if causal else ''} min_ms={1e3 * times[0]:.3f} "
              f"median_ms={1e3 * times[10]:.3f} gflops={work / times[0] / 1e9:.0f}")


run_all()
