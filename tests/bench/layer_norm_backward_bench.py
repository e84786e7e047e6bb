# GPT-2's layer-norm backward alone: y = x + LayerNorm(x) under bfloat16 autocast at [8, 1024, 768] (the residual's
# gradient fused into the backward's row kernel with the weight and bias column sums), compiled; GPU time of the
# backward a call (CUDA events around it, queued behind a backlog of matrix products so the host's launch cost is not
# in it), median of 50. From tests/bench: `cwb run layer_norm_backward_bench.py --device cuda` and `python3 -c
# "import layer_norm_backward_bench as b; b.main('cuda')"`; under cwb, CWB_CUDA_TUNING=block_partials=0 times the
# column partials a piece a row of threads instead of a piece a block. `--device cpu`: a small CPU smoke run, untimed.
import torch


def main(device="cuda"):
    cuda = device.startswith("cuda")
    torch.manual_seed(0)
    shape = (8, 1024, 768) if cuda else (2, 64, 768)
    norm = torch.nn.LayerNorm(768).to(device)
    x = torch.randn(*shape, device=device).to(torch.bfloat16).requires_grad_(True)
    dy = torch.randn(*shape, device=device)
    backlog = torch.randn(8192, 8192, device=device).to(torch.bfloat16) if cuda else None

    def f(x):
        with torch.autocast("cuda" if cuda else "cpu", dtype=torch.bfloat16, enabled=cuda):
            return x + norm(x)

    def forward(fn):
        x.grad = None
        norm.weight.grad = None
        norm.bias.grad = None
        return fn(x)

    def timed(fn, n=50):
        for _ in range(20):  # past the first tiers (cwb) and autotuning
            forward(fn).backward(dy)
        if not cuda:
            return 0.0
        torch.cuda.synchronize()
        for _ in range(12):
            backlog @ backlog
        events = []
        for _ in range(n):
            y = forward(fn)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            y.backward(dy)
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        times = sorted(s.elapsed_time(e) for s, e in events)
        return times[n // 2]

    compiled = torch.compile(f)
    forward(f).backward(dy)
    want = (x.grad.clone(), norm.weight.grad.clone(), norm.bias.grad.clone())
    forward(compiled).backward(dy)
    got = (x.grad, norm.weight.grad, norm.bias.grad)
    # bfloat16 rows: within 2% of each gradient's largest magnitude (the sums run in another order than eager's)
    close = all(((g.float() - w.float()).abs().max() <= 2e-2 * w.float().abs().max()).item() for g, w in zip(got, want))
    print("layer-norm backward compiled ms %.4f close to eager %s" % (timed(compiled), close))
    print("layer-norm backward eager ms %.4f" % timed(f))
