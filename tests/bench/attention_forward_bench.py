# The attention forward alone: F.scaled_dot_product_attention on [B, 12, L, 64] 16-bit operands, causal and not,
# under PyTorch (`python3 attention_forward_bench.py`, its FlashAttention backend forced) and cwb (`cwb run
# attention_forward_bench.py`, its flash kernel). Each call bracketed by CUDA events, calls queued back to back;
# the median of 100 calls after 20 warm-up calls. On the GPU machine, with a cwb bundle:
#   python3 tests/bench/attention_forward_bench.py; cwb run tests/bench/attention_forward_bench.py --device cuda
# One line per case: ATTN <impl> <shape> <dtype> <causal> us=<x> tflops=<y>
import torch
import torch.nn.functional as F

from inductor_bench import time_calls

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"
SHAPES = [(8, 12, 512, 64), (8, 12, 1024, 64), (16, 12, 1024, 64)]
ITERS, WARMUP = 100, 20


def time_us(fn):
    for i in range(WARMUP):
        fn()
    return time_calls(fn, (), "cuda", ITERS) * 1000.0


def run_all():
    for shape in SHAPES:
        for dtype in (torch.bfloat16, torch.float16):
            q = torch.randn(shape, device="cuda", dtype=dtype)
            k = torch.randn(shape, device="cuda", dtype=dtype)
            v = torch.randn(shape, device="cuda", dtype=dtype)
            for causal in (False, True):
                us = time_us(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                b, h, l, e = shape
                flops = 4.0 * b * h * l * l * e * (0.5 if causal else 1.0)
                name = "x".join(str(n) for n in shape)
                print(f"ATTN {IMPL} {name} {str(dtype).replace('torch.', '')} {'causal' if causal else 'full'} "
                      f"us={us:.1f} tflops={flops / us / 1e6:.0f}")


def main(spec=""):
    with torch.no_grad():
        run_all()


# cwb runs the module, then calls main(device).
if IMPL == "torch" and __name__ == "__main__":
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        main()
