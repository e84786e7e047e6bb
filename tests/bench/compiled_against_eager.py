# The bench's workloads compiled against eager in one process (from tests/bench: `cwb run compiled_against_eager.py
# --device cuda` on a GPU machine): each compiled twice (its capture's example values deferred, never launched), then run eagerly;
# prints the worst |difference| over max |eager| per workload and whether it is within the workload's tolerance.
import torch
from inductor_bench import MAKERS

TOLERANCE = {"B7": 2e-2, "B4bf16": 2e-2}


def flat(out):
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def main(device="cuda"):
    with torch.no_grad():
        for name in ["B1", "B2", "B3", "B4", "B4bf16", "B5", "B6", "B7"]:
            torch._dynamo.reset()
            torch.manual_seed(0)
            fn, args, nbytes, flops = MAKERS[name](device, False)
            got = flat(torch.compile(fn)(*args))
            got_again = flat(torch.compile(fn)(*args))
            want = flat(fn(*args))
            worst = 0.0
            for g, w in zip(got + got_again, want + want):
                difference = (g.float() - w.float()).abs().max().item()
                scale = w.float().abs().max().item()
                worst = max(worst, difference / max(scale, 1e-30))
            verdict = "ok" if worst < TOLERANCE.get(name, 1e-4) else "MISMATCH"
            print(f"CHECK {name} outputs={len(got)} worst_rel={worst:.3e} {verdict}")

