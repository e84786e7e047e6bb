# One GPT-2 training step (aot_training_bench.py's model) eager against compiled, parameter by parameter: the loss,
# every gradient, then every parameter's AdamW update (the compiled step given the eager step's gradients, so an
# optimizer difference shows apart from a gradient difference; both models stay in step, so each step isolates: the
# lockstep of tests/scripts/_lib/lockstep_training.py).
# `PYTHONPATH=tests/scripts cwb run tests/bench/aot_training_diff.py --device SPEC`.
# SPEC: cuda|cpu, layers=N, d=N, heads=N, t=N (tokens), vocab=N, batch=N, fp32 (no autocast), steps=N (losses of N
# steps of both), own (the compiled step takes the compiled gradients, as in a real loop: no longer in step), ref
# (first a float32 eager step: how far each bf16 gradient is from it, eager's and compiled's: which is less precise),
# nopad (the compiled copy with Inductor's shape_padding off: torch.compile(..., options={"shape_padding": False})).
# Output: LOSS eager compiled; GRAD name rel=||g_c - g_e|| / ||g_e|| max=...; UPDATE name rel=...; WORST lines.
import torch
import torch.nn.functional as F

import aot_training_bench as bench
from _lib.lockstep_training import difference, lockstep_steps


def parse(spec):
    cfg = {"device": "cuda", "layers": 2, "d": 768, "heads": 12, "t": 1024, "vocab": 50257, "batch": 8,
           "fp32": False, "steps": 1, "own": False, "ref": False, "nopad": False}
    for token in spec.split(","):
        token = token.strip()
        if token in ("cuda", "cpu"):
            cfg["device"] = token
        elif token in ("fp32", "own", "ref", "nopad"):
            cfg[token] = True
        elif "=" in token:
            key, value = token.split("=")
            cfg[key] = int(value)
    return cfg


def make(cfg):
    torch.manual_seed(0)
    return bench.GPT2(cfg["layers"], cfg["d"], cfg["heads"], cfg["t"], cfg["vocab"]).to(cfg["device"])


def main(spec="cuda"):
    cfg = parse(spec)
    device = cfg["device"]
    torch.manual_seed(1)
    idx = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["t"])).to(device)
    targets = torch.randint(0, cfg["vocab"], (cfg["batch"], cfg["t"])).to(device)
    eager = make(cfg)

    def run(model):
        if cfg["fp32"]:
            return model(idx, targets)
        with torch.autocast(device, dtype=torch.bfloat16):
            return model(idx, targets)

    names = [name for name, _ in eager.named_parameters()]
    options = {"shape_padding": False} if cfg["nopad"] else None
    if cfg["ref"]:
        reference = make(cfg)
        loss_r = reference(idx, targets)
        loss_r.backward()
        loss_e = run(eager)
        loss_e.backward()
        compiled_model = make(cfg)
        loss_c = run(torch.compile(compiled_model, options=options))
        loss_c.backward()
        print(f"REFLOSS float32={float(loss_r):.6f} eager={float(loss_e):.6f} compiled={float(loss_c):.6f}")
        for name, r, a, b in zip(names, reference.parameters(), eager.parameters(), compiled_model.parameters()):
            print(f"REF {name} eager={difference(r.grad, a.grad)[0]:.3e} compiled={difference(r.grad, b.grad)[0]:.3e} "
                  f"compiled_vs_eager={difference(a.grad, b.grad)[0]:.3e}", flush=True)
        return
    worst = []
    # a difference over this (relative, of a whole tensor) is printed at every step: bf16 rounding stays near 1e-2
    limit = 1e-4 if cfg["fp32"] else 2e-2
    steps = lockstep_steps(eager, make(cfg), run, cfg["steps"], fused=True, own_gradients=cfg["own"], options=options)
    for step, (loss_e, loss_c, rows) in enumerate(steps):
        print(f"LOSS step={step} eager={float(loss_e):.6f} compiled={float(loss_c):.6f}", flush=True)
        step_worst = {"GRAD": (0.0, ""), "UPDATE": (0.0, ""), "PARAM": (0.0, "")}

        def note(kind, name, pair, extra=""):
            r, m = pair
            worst.append((r, f"{kind} step={step} {name}"))
            if r > step_worst[kind][0]:
                step_worst[kind] = (r, name)
            if step == 0 or r > limit:
                print(f"{kind} step={step} {name} rel={r:.3e} max={m:.3e}{extra}", flush=True)

        for name, (grad_e, grad_c, _, _, _, _, _) in zip(names, rows):
            note("GRAD", name, difference(grad_e, grad_c), f" norm={float(grad_e.float().norm()):.4e}")
        # the compiled step on the eager gradients: an optimizer difference shows apart from the gradients'
        for name, (_, _, update_e, update_c, param_e, param_c, _) in zip(names, rows):
            note("UPDATE", name, difference(update_e, update_c))
            note("PARAM", name, difference(param_e, param_c))
        print("STEP " + str(step) + " " + " ".join(f"{k}={v[0]:.3e}({v[1]})" for k, v in step_worst.items()),
              flush=True)
    worst.sort(reverse=True)
    for r, what in worst[:8]:
        print(f"WORST {what} rel={r:.3e}")
