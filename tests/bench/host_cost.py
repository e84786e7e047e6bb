# Host cost of one call (guards, dispatch, launches): N calls issued back to back and timed on the host clock (the
# GPU work of these workloads is shorter than the host's), median of 5 rounds. `python3 tests/bench/host_cost.py [cpu]` for
# PyTorch, `cwb run tests/bench/host_cost.py --device cuda|cpu` for cwb (which calls main(device)); cuda by default.
import time

import torch

from inductor_bench import SmallMLP  # B5

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"


def tiny(x):
    return x + 1


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def per_call_us(fn, args, n, device):
    rounds = []
    for r in range(5):
        sync(device)
        t0 = time.perf_counter()
        for i in range(n):
            fn(*args)
        t1 = time.perf_counter()
        sync(device)
        rounds.append((t1 - t0) * 1e6 / n)
    rounds.sort()
    return rounds[2]


def main(spec=""):
    device = spec if spec != "" else "cuda"
    with torch.no_grad():
        model = SmallMLP(256, 256, 10).to(device)
        model.requires_grad_(False)
        model.eval()
        x = torch.randn([8, 256], device=device)
        t = torch.randn([8], device=device)
        for mode in ["eager", "default", "reduce-overhead"]:
            for name, fn, args in [("B5", model, [x]), ("tiny", tiny, [t])]:
                torch._dynamo.reset()
                if mode == "eager":
                    target = fn
                elif mode == "default":
                    target = torch.compile(fn)
                else:
                    target = torch.compile(fn, mode=mode)
                for i in range(20):
                    target(*args)
                print(f"HOST {IMPL} {device} {name} {mode} us_per_call={per_call_us(target, args, 500, device):.1f}")


if IMPL == "torch" and __name__ == "__main__":
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else "")
