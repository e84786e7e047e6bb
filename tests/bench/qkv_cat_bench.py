# The GPT-2 training step's q/k/v gradient cat alone: torch.cat of the three [8, 1024, 768] bfloat16 views of one
# [3, 8, 1024, 12, 64] gradient buffer (the flash backward's layout) into [8, 1024, 2304], compiled; GPU time a call
# (CUDA events around each call, queued behind a backlog of matrix products so the host's launch cost is not in
# it), median of 50. `cwb run tests/bench/qkv_cat_bench.py` and `python3 tests/bench/qkv_cat_bench.py`; under cwb,
# CWB_CUDA_TUNING=where_vectors=0 times the form before the cat's vector loads, store_vectors=0 one element a thread.
import torch

torch.manual_seed(0)
g = torch.randn(3, 8, 1024, 12, 64, device="cuda").to(torch.bfloat16)
backlog = torch.randn(8192, 8192, device="cuda").to(torch.bfloat16)


def qkv(g):
    return torch.cat([g[0].view(8, 1024, 768), g[1].view(8, 1024, 768), g[2].view(8, 1024, 768)], dim=2)


def timed(fn, n=50):
    for _ in range(20):  # past the first tiers (cwb) and autotuning
        fn(g)
    torch.cuda.synchronize()
    for _ in range(12):
        backlog @ backlog
    events = []
    for _ in range(n):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(g)
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in events)
    return times[n // 2]


compiled = torch.compile(qkv, dynamic=False)
equal = torch.equal(compiled(g), qkv(g))
ms = timed(compiled)
moved = 2 * g.numel() * g.element_size()
print("qkv cat compiled ms %.4f (%.0f GB/s) equals eager %s" % (ms, moved / ms / 1e6, equal))
print("qkv cat eager ms %.4f" % timed(qkv))
