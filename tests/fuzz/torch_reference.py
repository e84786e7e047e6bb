#!/usr/bin/env python3
# Real PyTorch's results for differential-fuzzing programs: each program's run(device, backend, mode) eagerly and
# under torch.compile (inductor), per device, written as P.torch.json beside P.py for `cwb_difffuzz torch-check`.
# Usage (where PyTorch is installed): torch_reference.py [--devices cpu,cuda] [--jobs N] [--timeout S] P.py...
import argparse
import contextlib
import io
import json
import math
import multiprocessing
import os
import signal
import sys
import time

# Above this many elements only the first 64 values are kept, as cwb's outputs writer does (kMaxOutputValues).
MAX_VALUES = 4096


def clean(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def summarize(torch, value):
    """One returned value in the format of `cwb run --outputs` (the fields cwb_difffuzz compares)."""
    if not isinstance(value, torch.Tensor):
        return {"kind": type(value).__name__, "repr": repr(value)}
    t = value.detach()
    flat = t.cpu().reshape(-1)
    if flat.is_floating_point():
        flat = flat.to(torch.float64)
    values = [clean(v) for v in flat.tolist()]
    out = {"kind": "tensor", "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
           "device": t.device.type, "numel": t.numel(), "stride": list(t.stride()),
           "requires_grad": bool(value.requires_grad)}
    if len(values) <= MAX_VALUES:
        out["values"] = values
    else:
        out["first64"] = values[:64]
    return out


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout()


def run_program(path, device, backend, timeout):
    """run(device, backend, "default") of a fresh copy of the program: its outputs and what it printed."""
    import torch
    torch._dynamo.reset()
    with open(path) as f:
        source = f.read()
    namespace = {"__name__": "fuzz_program", "__file__": path}
    printed = io.StringIO()
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(timeout)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(source, path, "exec"), namespace)
            returned = namespace["run"](device, backend, "default")
        if device == "cuda":
            torch.cuda.synchronize()
        items = returned if isinstance(returned, (list, tuple)) else [returned]
        return {"ok": True, "outputs": [summarize(torch, v) for v in items], "printed": printed.getvalue()}
    except Timeout:
        return {"ok": False, "error": f"no result after {timeout} s", "printed": printed.getvalue()}
    except Exception as e:  # the program's own error is a result: cwb must raise too
        return {"ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                "printed": printed.getvalue()}
    finally:
        signal.alarm(0)


def reference(job):
    path, devices, timeout = job
    import torch
    start = time.monotonic()
    results = {}
    for device in devices:
        results[device] = {"eager": run_program(path, device, "none", timeout),
                           "compiled": run_program(path, device, "inductor", timeout)}
    out = path[:-3] + ".torch.json" if path.endswith(".py") else path + ".torch.json"
    with open(out, "w") as f:
        json.dump({"program": os.path.basename(path), "torch": torch.__version__, "results": results}, f, indent=1)
    return path, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description="Real PyTorch results for cwb_difffuzz torch-check")
    parser.add_argument("programs", nargs="+")
    parser.add_argument("--devices", default="cpu,cuda")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    parser.add_argument("--timeout", type=int, default=120, help="seconds per program, device and backend")
    args = parser.parse_args()
    devices = [d for d in args.devices.split(",") if d]
    import torch
    if "cuda" in devices and not torch.cuda.is_available():
        print("torch_reference: no CUDA device, cuda left out", file=sys.stderr)
        devices.remove("cuda")
    jobs = [(p, devices, args.timeout) for p in args.programs]
    # Fresh worker processes (spawn): CUDA cannot be used in a child forked after the parent initialised it.
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for path, seconds in pool.imap_unordered(reference, jobs):
            print(f"{path}: {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
