# One GPT-2 training step (aot_training_bench.py's model) eager against compiled, parameter by parameter: the loss,
# every gradient, then every parameter's AdamW update (the compiled step given the eager step's gradients, so an
# optimizer difference shows apart from a gradient difference; both models stay in step, so each step isolates). `cwb run aot_training_diff.py --device SPEC`.
# SPEC: cuda|cpu, layers=N, d=N, heads=N, t=N (tokens), vocab=N, batch=N, fp32 (no autocast), steps=N (losses of N
# steps of both), own (the compiled step takes the compiled gradients, as in a real loop: no longer in step), ref
# (first a float32 eager step: how far each bf16 gradient is from it, eager's and compiled's: which is less precise).
# Output: LOSS eager compiled; GRAD name rel=||g_c - g_e|| / ||g_e|| max=...; UPDATE name rel=...; WORST lines.
import torch
import torch.nn.functional as F

import aot_training_bench as bench


def parse(spec):
    cfg = {"device": "cuda", "layers": 2, "d": 768, "heads": 12, "t": 1024, "vocab": 50257, "batch": 8,
           "fp32": False, "steps": 1, "own": False, "ref": False}
    for token in spec.split(","):
        token = token.strip()
        if token in ("cuda", "cpu"):
            cfg["device"] = token
        elif token in ("fp32", "own", "ref"):
            cfg[token] = True
        elif "=" in token:
            key, value = token.split("=")
            cfg[key] = int(value)
    return cfg


def rel(a, b):
    a = a.float()
    b = b.float()
    denominator = float(a.norm())
    return float((b - a).norm()) / (denominator if denominator > 0 else 1.0), float((b - a).abs().max())


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
    compiled_model = make(cfg)
    compiled = torch.compile(compiled_model)

    def run(fn):
        if cfg["fp32"]:
            return fn(idx, targets)
        with torch.autocast(device, dtype=torch.bfloat16):
            return fn(idx, targets)

    names = [name for name, _ in eager.named_parameters()]
    pe = [p for _, p in eager.named_parameters()]
    pc = [p for _, p in compiled_model.named_parameters()]
    opt_e = torch.optim.AdamW(pe, lr=1e-3, fused=True)
    opt_c = torch.optim.AdamW(pc, lr=1e-3, fused=True)
    step_c = torch.compile(opt_c.step)
    if cfg["ref"]:
        reference = make(cfg)
        loss_r = reference(idx, targets)
        loss_r.backward()
        loss_e = run(eager)
        loss_e.backward()
        loss_c = run(compiled)
        loss_c.backward()
        print(f"REFLOSS float32={float(loss_r):.6f} eager={float(loss_e):.6f} compiled={float(loss_c):.6f}")
        for name, r, a, b in zip(names, [p for p in reference.parameters()], pe, pc):
            print(f"REF {name} eager={rel(r.grad, a.grad)[0]:.3e} compiled={rel(r.grad, b.grad)[0]:.3e}", flush=True)
        return
    worst = []
    # a difference over this (relative, of a whole tensor) is printed at every step: bf16 rounding stays near 1e-2
    limit = 1e-4 if cfg["fp32"] else 2e-2
    for step in range(cfg["steps"]):
        opt_e.zero_grad()
        opt_c.zero_grad()
        loss_e = run(eager)
        loss_e.backward()
        loss_c = run(compiled)
        loss_c.backward()
        print(f"LOSS step={step} eager={float(loss_e):.6f} compiled={float(loss_c):.6f}", flush=True)
        step_worst = {"GRAD": (0.0, ""), "UPDATE": (0.0, ""), "PARAM": (0.0, "")}

        def note(kind, name, r, m, extra=""):
            worst.append((r, f"{kind} step={step} {name}"))
            if r > step_worst[kind][0]:
                step_worst[kind] = (r, name)
            if step == 0 or r > limit:
                print(f"{kind} step={step} {name} rel={r:.3e} max={m:.3e}{extra}", flush=True)

        for name, a, b in zip(names, pe, pc):
            r, m = rel(a.grad, b.grad)
            note("GRAD", name, r, m, f" norm={float(a.grad.float().norm()):.4e}")
        # the compiled step on the eager gradients: an optimizer difference shows apart from the gradients'
        before_e = [p.detach().clone() for p in pe]
        before_c = [p.detach().clone() for p in pc]
        if not cfg["own"]:
            for a, b in zip(pe, pc):
                b.grad = a.grad.detach().clone()
        opt_e.step()
        step_c()
        for name, a, b, a0, b0 in zip(names, pe, pc, before_e, before_c):
            r, m = rel(a.detach() - a0, b.detach() - b0)
            note("UPDATE", name, r, m)
            r, m = rel(a.detach(), b.detach())
            note("PARAM", name, r, m)
        print("STEP " + str(step) + " " + " ".join(f"{k}={v[0]:.3e}({v[1]})" for k, v in step_worst.items()),
              flush=True)
    worst.sort(reverse=True)
    for r, what in worst[:8]:
        print(f"WORST {what} rel={r:.3e}")
