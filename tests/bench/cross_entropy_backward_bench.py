# GPT-2's cross_entropy backward alone: F.cross_entropy over [8192, 50257] bfloat16 logits cast to float32 (as autocast
# runs it), compiled; GPU time of the backward a call (CUDA events around it, queued behind a backlog of matrix
# products so the host's launch cost is not in it), median of 30. The logits are a contiguous leaf, as the training
# step's backward reads them (rows of 50257: one in 8 starts on a 16-byte vector). From tests/bench: `cwb run
# cross_entropy_backward_bench.py --device cuda` (under cwb, CWB_CUDA_TUNING=shifted_rows=1 reads misaligned rows as
# vectors shifted to an aligned start) and `python3 -c "import cross_entropy_backward_bench as b; b.main('cuda')"`.
# `--device cpu`: a small CPU smoke run, untimed.
import torch
import torch.nn.functional as F


def main(device="cuda"):
    cuda = device.startswith("cuda")
    torch.manual_seed(0)
    rows, classes = (8192, 50257) if cuda else (64, 1003)
    x = torch.randn(rows, classes, device=device).to(torch.bfloat16).requires_grad_(True)
    target = torch.randint(0, classes, (rows,), device=device)
    backlog = torch.randn(8192, 8192, device=device).to(torch.bfloat16) if cuda else None

    def f(x):
        return F.cross_entropy(x.float(), target)

    def forward(fn):
        x.grad = None
        return fn(x)

    def timed(fn, n=30):
        for _ in range(10):  # past the first tiers (cwb) and autotuning
            forward(fn).backward()
        if not cuda:
            return 0.0
        torch.cuda.synchronize()
        events = []
        for _ in range(n):
            y = forward(fn)
            for _ in range(4):
                backlog @ backlog
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            y.backward()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        times = sorted(s.elapsed_time(e) for s, e in events)
        return times[n // 2]

    compiled = torch.compile(f)
    forward(f).backward()
    want = x.grad.float().clone()
    forward(compiled).backward()
    got = x.grad.float()
    # bfloat16 gradients: within 1% of the largest magnitude (softmax sums in another order than eager's)
    close = ((got - want).abs().max() <= 1e-2 * want.abs().max()).item()
    print("cross_entropy backward compiled ms %.4f close to eager %s" % (timed(compiled), close))
