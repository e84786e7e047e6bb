# The flash attention backward (and forward) at GPT-2 small's shape under cwb: [8, 12, 1024, 64] bf16, causal, the
# forward's saved logsumexp: median of 30 calls with the device synchronised around each, and the median of 30 calls'
# device times between CUDA events (calls back to back). `cwb run tests/bench/flash_attention_backward_bench.py`;
# CWB_FLASH_BACKWARD_WGMMA=0 times the fused pass on mma.sync only, CWB_FLASH_BACKWARD_FUSED=0 the two-walk backward.
import time

import torch

torch.manual_seed(0)
q, k, v, g = [torch.randn(8, 12, 1024, 64, device="cuda").to(torch.bfloat16) for _ in range(4)]
out, lse = torch._flash_attention_forward(q, k, v, True, 0.125)


def timed(f, n=30):
    for _ in range(3):
        f()
    times = []
    for _ in range(n):
        torch.cuda.synchronize()
        t = time.perf_counter()
        f()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return sorted(times)[n // 2] * 1e3


def event_timed(f, n=30):
    for _ in range(3):
        f()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for start, end in events:
        start.record()
        f()
        end.record()
    torch.cuda.synchronize()
    return sorted(start.elapsed_time(end) for start, end in events)[n // 2]


backward = lambda: torch._flash_attention_backward(g, q, k, v, out, True, 0.125, lse)
print("flash backward ms %.4f (events %.4f)" % (timed(backward), event_timed(backward)))
print("flash forward ms %.4f" % timed(lambda: torch._flash_attention_forward(q, k, v, True, 0.125)))
