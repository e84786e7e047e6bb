# Where a GPT-2 training step's device time goes, kernel class by kernel class, for PyTorch and cwb alike.
# `python3 step_kernel_classes.py torch OUT.tsv`: torch.compile's step (aot_training_bench's gpt2) under torch.profiler;
# `python3 step_kernel_classes.py summary FILE.tsv [N] [A:B]`: the classes of a trace (this or cupti_kernel_trace.c's) per
# phase, the last N; a cwb trace has no phase marks, so its phases are the stretches between synchronisations ("segment
# -k", counted from the end), and A:B (e.g. -9:-1) joins segments A to B into one phase: a backward that synchronises
# inside (the embeddings' bounds checks) spans several.
import collections
import re
import sys


def classify(name):
    """A kernel's class from its name (cuBLAS, cuDNN, Triton, cwb's generated and eager kernels)."""
    n = name.lower()
    if any(s in n for s in ("flash", "fmha", "cudnn", "attention", "sdpa")):
        return "attention"
    if any(s in n for s in ("gemm", "nvjet", "cutlass", "xmma", "splitk", "cublas", "triton_tem")):
        return "gemm (cuBLAS)"
    if n.startswith("triton_poi") or n.startswith("cwb_poi"):
        return "pointwise"
    if n.startswith(("triton_red", "triton_per", "cwb_red")):
        return "reduction"
    if n.startswith(("cwb_for", "triton_for")):
        return "combo (foreach)"
    if n.startswith(("memcpy", "memset")) or n in ("[copy]", "[fill]"):
        return "copy / fill"
    return "other"


def family(name):
    """A kernel name without its per-graph number and template arguments, so the 12 layers' kernels group."""
    base = re.sub(r"_\d+$", "", name.split("(")[0])
    return base[:110]


def read(path):
    """Phases of a trace: a `P name` line starts a phase (torch side); otherwise segments between synchronisations."""
    records, phases = [], []
    for line in open(path):
        parts = line.rstrip("\n").split("\t")
        if parts[0] == "P":
            phases.append((parts[1], []))
        elif parts[0] in ("K", "M", "F", "S"):
            start, end = int(parts[1]), int(parts[2])
            name = parts[4] if parts[0] == "K" else {"M": "[copy]", "F": "[fill]", "S": None}[parts[0]]
            if phases:
                if name is not None:
                    phases[-1][1].append((start, end, name))
            else:
                records.append((start, end, name))
    if phases:
        return phases
    records.sort()
    segments, current = [], []
    for start, end, name in records:
        if name is None:
            if current:
                segments.append(current)
            current = []
        else:
            current.append((start, end, name))
    if current:
        segments.append(current)
    return [(f"segment {i - len(segments)}", s) for i, s in enumerate(segments)]


def summary(path, last=12, join=None):
    phases = read(path)
    if join:
        a, b = (int(x) for x in join.split(":"))
        a, b = a % len(phases), b % len(phases)
        joined = [item for _, items in phases[a:b + 1] for item in items]
        phases = phases[:a] + [(f"segments {join}", joined)] + phases[b + 1:]
    shown = phases[-last:]
    print(f"{path}: {len(phases)} phases; the last {len(shown)}: kernels, busy ms, span ms")
    for name, items in shown:
        busy = sum(e - s for s, e, _ in items) / 1e6
        span = (max(e for _, e, _ in items) - min(s for s, _, _ in items)) / 1e6
        print(f"  {name:14} {len(items):6} {busy:9.3f} {span:9.3f}")
    for name, items in shown:
        if len(items) < 20:
            continue
        classes = collections.defaultdict(lambda: [0, 0.0])
        families = collections.defaultdict(lambda: [0, 0.0])
        for s, e, k in items:
            classes[classify(k)][0] += 1
            classes[classify(k)][1] += (e - s) / 1e6
            families[family(k)][0] += 1
            families[family(k)][1] += (e - s) / 1e6
        total = sum(v[1] for v in classes.values())
        print(f"\n== {name}: {len(items)} launches, {total:.3f} ms of kernel time")
        for c, (count, ms) in sorted(classes.items(), key=lambda kv: -kv[1][1]):
            print(f"  {c:20} {count:5} {ms:9.3f} ms")
        for f, (count, ms) in sorted(families.items(), key=lambda kv: -kv[1][1])[:40]:
            print(f"    {ms:8.3f} ms {count:4}x {ms / count * 1e3:8.1f} us  {f}")


def torch_step(out_path):
    import torch
    from torch.profiler import ProfilerActivity, profile

    import aot_training_bench as b

    cfg = b.parse_spec("cuda,gpt2")
    w = b.workloads(cfg)["gpt2"]
    torch.manual_seed(0)
    model = w["make"]().cuda()
    inputs = [x.cuda() for x in w["inputs"]]
    run = torch.compile(model, backend="inductor")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    step = torch.compile(opt.step, backend="inductor")
    with open(out_path, "w") as out:
        for i in range(4):
            profiled = i == 3
            for phase in ("forward", "backward", "step"):
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) if profiled else _nothing() as p:
                    if phase == "forward":
                        opt.zero_grad()
                        with torch.autocast("cuda", dtype=torch.bfloat16):
                            loss = run(*inputs)
                    elif phase == "backward":
                        loss.backward()
                    else:
                        step()
                    torch.cuda.synchronize()
                if profiled:
                    out.write(f"P\t{phase}\n")
                    for e in p.events():
                        if e.device_type == torch.autograd.DeviceType.CUDA:
                            r = e.time_range
                            out.write(f"K\t{int(r.start * 1000)}\t{int(r.end * 1000)}\t0\t{e.name}\n")
            print(f"step {i} loss {float(loss):.4f}", flush=True)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


if __name__ == "__main__":
    if sys.argv[1] == "torch":
        torch_step(sys.argv[2])
    else:
        summary(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 12, sys.argv[4] if len(sys.argv) > 4 else None)
