# What a fresh process pays on CUDA the first time it uses each piece (context, cuBLAS/cuBLASLt, eager kernels,
# flash attention), eagerly, one line each: `cwb run tests/bench/first_use_costs.py` (or python3 for PyTorch's).
# Run it twice with one kernel cache (CWB_KERNEL_CACHE_DIR) to tell compile time from library start-up.
import time

import torch
import torch.nn.functional as F

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"


def timed(label, fn):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    result = fn()
    torch.cuda.synchronize()
    print(f"FIRST {IMPL} {label} {time.perf_counter() - t0:.4f} s")
    return result


def main(spec="cuda"):  # (cwb passes --device; CUDA is what this measures)
    x = timed("context+randn[64]", lambda: torch.randn([64], device="cuda"))
    timed("x*2 (first pointwise)", lambda: x * 2)
    timed("x*3 (same kernel)", lambda: x * 3)
    timed("sin", lambda: x.sin())
    w = torch.randn([64, 64], device="cuda")
    a = torch.randn([8, 64], device="cuda")
    timed("linear f32 (first matmul)", lambda: F.linear(a, w))
    timed("linear f32 again", lambda: F.linear(a, w))
    timed("mm f32", lambda: torch.mm(a, w))
    wb = w.to(torch.bfloat16)
    ab = a.to(torch.bfloat16)
    timed("linear bf16", lambda: F.linear(ab, wb))
    q = torch.randn([1, 2, 64, 64], device="cuda", dtype=torch.bfloat16)
    timed("sdpa bf16 causal (flash)", lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True))
    timed("sdpa again", lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True))
    timed("layer_norm", lambda: F.layer_norm(a, (64,)))
    timed("softmax", lambda: torch.softmax(a, dim=-1))
    timed("sum(dim=1)", lambda: a.sum(dim=1))
    timed("gelu", lambda: F.gelu(a))


if IMPL == "torch" and __name__ == "__main__":
    main()
