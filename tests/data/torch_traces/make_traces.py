#!/usr/bin/env python3
"""Make real TORCH_TRACE logs, with PyTorch's own counters, for cwb's tests.

Each scenario runs programs/<scenario>.py in a fresh python3 subprocess (cwd =
this folder, so the logs name the program "programs/<scenario>.py") with
  TORCH_TRACE=<out>/<scenario>   TORCH_LOGS=recompiles,graph_breaks
and fresh, empty Inductor/Triton cache folders.  The child calls main(device)
and dumps torch._dynamo.utils.counters; this script then parses the child's
stderr (recompile / graph-break / warning messages), counts records in the
trace log(s) with its own small parser, checks which counts agree, and writes
<out>/<scenario>/pytorch_counters.json.  README.md explains every field.

Run (needs torch; training_cuda needs a CUDA GPU):
    cd tests/data/torch_traces && python3 make_traces.py [--out DIR] [--only a,b]
Redo only the parsing of the stored stderr and logs (no torch needed):
    cd tests/data/torch_traces && python3 make_traces.py --reparse
"""
import argparse
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
NO_CACHE = {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
# name -> (device, processes, extra env). Caches are switched off where many
# compiles would make the log large; training_cuda keeps the default (cold) caches.
SCENARIOS = {
    "breaks_cpu": ("cpu", 1, NO_CACHE),
    "recompiles_cpu": ("cpu", 1, NO_CACHE),
    "failures_cpu": ("cpu", 1, NO_CACHE),
    "training_cuda": ("cuda", 1, {}),
    "ranks_cpu": ("cpu", 2, NO_CACHE),
}

# Runs in the child through `python3 -c`, so its frames are named "<string>".
CHILD = r"""
import json, sys, types
program, device, result = sys.argv[1:4]
import torch, torch._dynamo
from torch._dynamo.utils import counters
mod = types.ModuleType("program")
mod.__file__ = program
sys.modules["program"] = mod
out = {"torch_version": torch.__version__, "raised": None, "notes": None}
try:
    exec(compile(open(program).read(), program, "exec"), mod.__dict__)
    out["notes"] = mod.main(device)
except BaseException as e:
    out["raised"] = {"type": type(e).__module__ + "." + type(e).__name__, "message": str(e)}
out["counters"] = {k: dict(v) for k, v in counters.items()}
out["config"] = {
    "recompile_limit": torch._dynamo.config.recompile_limit,
    "automatic_dynamic_shapes": torch._dynamo.config.automatic_dynamic_shapes,
    "fx_graph_cache": torch._inductor.config.fx_graph_cache,
    "autograd_cache": torch._functorch.config.enable_autograd_cache,
}
json.dump(out, open(result, "w"), indent=1, default=repr)
"""

# glog prefix of a TORCH_LOGS line: W1122 06:30:37.359000 451 torch/_dynamo/x.py:12] rest
# (once torch.distributed is initialised, torch puts "[rank1]:" in front of it)
LOG_LINE = re.compile(r"^(?:\[rank\d+\]:)?([VIWEC])(\d{4} [\d:.]+) +(\d+) (\S+:\d+)\] ?(.*)$")
TAG = re.compile(r"^(\[[^\]]*\]) (?:\[(__\w+)\] ?)?")  # "[0/1] [__recompiles] "


def log_blocks(stderr):
    """Group stderr lines into messages: consecutive lines with the same glog
    prefix and compile-id tag form one message (torch prefixes every line)."""
    blocks, prev = [], None
    for raw in stderr.splitlines():
        m = LOG_LINE.match(raw)
        if not m:
            blocks.append({"level": None, "tag": None, "artifact": None, "lines": [raw]})
            prev = None
            continue
        level, when, thread, loc, rest = m.groups()
        t = TAG.match(rest)
        tag, art = (t.group(1), t.group(2)) if t else (None, None)
        text = rest[t.end():] if t else rest
        key = (level, when, thread, loc, tag, art)
        starts = text.startswith(("Recompiling function", "Graph break in user code"))
        if key != prev or starts:
            blocks.append({"level": level, "tag": tag, "artifact": art, "lines": []})
        blocks[-1]["lines"].append(text)
        prev = key
    return blocks


def parse_stderr(stderr):
    recompiles, breaks, warnings, limit = [], [], [], []
    for b in log_blocks(stderr):
        first = b["lines"][0]
        if b["artifact"] == "__recompiles" and first.startswith("Recompiling function"):
            m = re.match(r"Recompiling function (\S+) in (.*):(\d+)$", first)
            recompiles.append({
                "compile_id": b["tag"], "function": m and m.group(1),
                "file": m and m.group(2), "line": m and int(m.group(3)),
                "guard_failures": [l.strip() for l in b["lines"][1:] if l.strip().startswith("- ")],
                "failed_entries": [l.strip() for l in b["lines"][1:]
                                   if re.match(r"\s*- \d+/\d+: ", l)],
                "lines": b["lines"]})
        elif b["artifact"] == "__graph_breaks":
            breaks.append({"compile_id": b["tag"], "lines": b["lines"]})
        elif b["level"] == "W":
            w = {"compile_id": b["tag"], "lines": b["lines"]}
            (limit if "recompile_limit" in "\n".join(b["lines"]) else warnings).append(w)
    return {"recompiles": recompiles, "graph_breaks": breaks,
            "recompile_limit_warnings": limit, "other_warnings": warnings}


TRACE_LINE = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ [^\]]*\] (\{.*\})$")
CONTEXT_KEYS = {"rank", "compiled_autograd_id", "frame_id", "frame_compile_id", "attempt",
                "has_payload", "stack", "subgraph_name"}


def trace_counts(path):
    """Independent count of records in one TORCH_TRACE log (payload lines start with a tab)."""
    c = {"records": 0, "dynamo_start": 0, "dynamo_output_graph": 0, "graph_break_reasons": 0,
         "recompile_reasons": 0, "recompile_compile_ids": [], "compilation_metrics": 0,
         "failed_compiles": 0, "fail_types": [], "inductor_output_code": 0, "aot_joint_graph": 0,
         "aot_forward_graph": 0, "aot_backward_graph": 0, "aot_inference_graph": 0,
         "dynamo_error": 0, "compilation_metrics_runtime": 0, "bwd_compilation_metrics": 0,
         "ranks": [], "records_with_rank": 0, "unparsed_lines": 0}
    recompile_ids = set()
    last = {}  # (frame_id, frame_compile_id) -> [attempt, output graphs of that attempt]
    final_graphs = ok_graphs = 0
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("\t") or not line.strip():
                continue
            m = TRACE_LINE.match(line.rstrip("\n"))
            if not m:
                c["unparsed_lines"] += 1
                continue
            rec = json.loads(m.group(1))
            c["records"] += 1
            kind = next((k for k in rec if k not in CONTEXT_KEYS), "_none")
            body = rec[kind]
            if "rank" in rec:
                c["records_with_rank"] += 1
                if rec["rank"] not in c["ranks"]:
                    c["ranks"].append(rec["rank"])
            if kind in c and isinstance(c[kind], int):
                c[kind] += 1
            key = (rec.get("frame_id"), rec.get("frame_compile_id"))
            if kind == "dynamo_start" and rec.get("attempt") == 0 and key in last:
                final_graphs += last.pop(key)[1]  # same id again (after reset)
            if kind == "dynamo_start" and rec.get("frame_compile_id", 0) > 0:
                recompile_ids.add(key)
            elif kind == "dynamo_output_graph":  # a restart discards earlier attempts
                att = rec.get("attempt", 0)
                if key not in last or last[key][0] < att:
                    last[key] = [att, 0]
                last[key][1] += 1
            elif kind == "artifact" and body["name"] == "dynamo_graph_break_reason":
                c["graph_break_reasons"] += 1
            elif kind == "artifact" and body["name"] in ("recompile_reasons", "dynamo_error"):
                c[body["name"]] += 1
            elif kind == "compilation_metrics":  # closes the compile: count its graphs
                graphs = last.pop(key, [0, 0])[1]
                final_graphs += graphs
                if body.get("fail_type") is None:
                    ok_graphs += graphs
                else:
                    c["failed_compiles"] += 1
                    c["fail_types"].append(body["fail_type"])
    c["dynamo_output_graph_last_attempt"] = final_graphs + sum(v[1] for v in last.values())
    c["dynamo_output_graph_ok"] = ok_graphs
    c["recompile_compile_ids"] = ["%d/%d" % k for k in sorted(recompile_ids)]
    c["recompiles"] = len(recompile_ids)
    return c


def checks(proc, tc):
    """PyTorch's counters against the trace counts of the same process."""
    cnt = proc["counters"]
    pairs = {
        "unique_graphs == dynamo_output_graph":
            (cnt.get("stats", {}).get("unique_graphs", 0), tc["dynamo_output_graph"]),
        "unique_graphs == dynamo_output_graph_last_attempt":
            (cnt.get("stats", {}).get("unique_graphs", 0), tc["dynamo_output_graph_last_attempt"]),
        "unique_graphs == dynamo_output_graph_ok":
            (cnt.get("stats", {}).get("unique_graphs", 0), tc["dynamo_output_graph_ok"]),
        "sum(graph_break) == graph_break_reasons":
            (sum(cnt.get("graph_break", {}).values()), tc["graph_break_reasons"]),
        "len(stderr recompiles) == recompiles":
            (len(proc["logs"]["recompiles"]), tc["recompiles"]),
        "len(stderr recompiles) == recompile_reasons":
            (len(proc["logs"]["recompiles"]), tc["recompile_reasons"]),
        "len(stderr graph_breaks) == graph_break_reasons":
            (len(proc["logs"]["graph_breaks"]), tc["graph_break_reasons"]),
        "frames.total == compilation_metrics":
            (cnt.get("frames", {}).get("total", 0), tc["compilation_metrics"]),
        "frames.total - frames.ok == failed_compiles":
            (cnt.get("frames", {}).get("total", 0) - cnt.get("frames", {}).get("ok", 0),
             tc["failed_compiles"]),
    }
    return {k: {"pytorch": a, "trace": b, "equal": a == b} for k, (a, b) in pairs.items()}


def run_scenario(name, out_root):
    device, nproc, extra = SCENARIOS[name]
    out = os.path.join(out_root, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    tmp = tempfile.mkdtemp(prefix="cwb_" + name + "_")
    port = free_port()
    children = []
    for rank in range(nproc):
        env = dict(os.environ, TORCH_TRACE=out, TORCH_LOGS="recompiles,graph_breaks",
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor%d" % rank),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton%d" % rank),
                   PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", **extra)
        if nproc > 1:
            env.update(RANK=str(rank), WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=str(port))
        result = os.path.join(tmp, "result%d.json" % rank)
        cmd = [sys.executable, "-c", CHILD, "programs/%s.py" % name, device, result]
        p = subprocess.Popen(cmd, cwd=HERE, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        children.append((rank, p, result))
    procs = []
    for rank, p, result in children:
        try:
            stdout, stderr = p.communicate(timeout=400)
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
        proc = {"rank": rank if nproc > 1 else None, "exit_code": p.returncode}
        if os.path.exists(result):
            proc.update(json.load(open(result)))
        proc.setdefault("counters", {})
        proc["stdout"] = stdout
        proc["stderr"] = stderr
        procs.append(proc)
    shutil.rmtree(tmp, ignore_errors=True)
    res = {"scenario": name, "program": "programs/%s.py" % name, "device": device,
           "torch_version": procs[0].get("torch_version"),
           "env": {"TORCH_LOGS": "recompiles,graph_breaks", **extra}, "processes": procs}
    return summarize(out, res)


def summarize(out, res):
    """Parse stderr and logs, compare, and write pytorch_counters.json (no torch needed)."""
    logs = sorted(glob.glob(os.path.join(out, "dedicated_log_torch_trace*.log")))
    per_file = {os.path.basename(f): trace_counts(f) for f in logs}
    for proc in res["processes"]:  # pair each process with its log: by rank, else the only file
        proc["logs"] = parse_stderr(proc["stderr"])
        mine = [n for n in per_file if proc["rank"] is None or ("_rank_%d_" % proc["rank"]) in n]
        proc["log_file"] = mine[0] if len(mine) == 1 else None
        proc["checks"] = checks(proc, per_file[mine[0]]) if len(mine) == 1 else None
    res["trace_counts"] = per_file
    with open(os.path.join(out, "pytorch_counters.json"), "w") as fh:
        json.dump(res, fh, indent=1)
    return res


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--only", default=",".join(SCENARIOS))
    ap.add_argument("--reparse", action="store_true",
                    help="only redo the parsing from the stored stderr and logs (no torch)")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    out = os.path.abspath(args.out)
    if args.reparse:
        results = [summarize(os.path.join(out, n),
                             json.load(open(os.path.join(out, n, "pytorch_counters.json"))))
                   for n in names]
    else:
        with ThreadPoolExecutor(len(names)) as pool:
            results = list(pool.map(lambda n: run_scenario(n, out), names))
    for r in results:
        for p in r["processes"]:
            print("==", r["scenario"], "rank", p["rank"], "exit", p["exit_code"],
                  "raised", p.get("raised"), "log", p.get("log_file"))
            print("   counters:", json.dumps({k: p["counters"].get(k) for k in
                                             ("stats", "frames", "graph_break")})[:600])
            for k, v in (p["checks"] or {}).items():
                print("   %-5s %s  (pytorch %s, trace %s)" % (v["equal"], k, v["pytorch"], v["trace"]))
        for f, tc in r["trace_counts"].items():
            print("  ", f, json.dumps({k: v for k, v in tc.items() if v not in (0, [])}))


if __name__ == "__main__":
    main()
