# Host cost of one call (guards, dispatch, launches): N calls issued back to back and timed on the host clock (the
# GPU work of these workloads is shorter than the host's), median of 5 rounds. `python3 tests/bench/host_cost.py` for
# PyTorch, `cwb run tests/bench/host_cost.py --device cuda` for cwb (which calls main).
import time

import torch

from inductor_bench import SmallMLP  # B5

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"


def tiny(x):
    return x + 1


def per_call_us(fn, args, n):
    rounds = []
    for r in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(n):
            fn(*args)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        rounds.append((t1 - t0) * 1e6 / n)
    rounds.sort()
    return rounds[2]


def main(spec=""):
    with torch.no_grad():
        model = SmallMLP(256, 256, 10).to("cuda")
        model.requires_grad_(False)
        model.eval()
        x = torch.randn([8, 256], device="cuda")
        t = torch.randn([8], device="cuda")
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
                print(f"HOST {IMPL} {name} {mode} us_per_call={per_call_us(target, args, 500):.1f}")


if IMPL == "torch" and __name__ == "__main__":
    main()
