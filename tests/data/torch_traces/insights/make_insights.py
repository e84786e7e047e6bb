#!/usr/bin/env python3
"""Trim real TORCH_TRACE logs to the records the insight tests need, and count those records independently.

The full logs (cache misses then hits, dynamic shapes, two diverging DDP ranks, graph breaks with a profile)
are megabytes of chromium events and cache-key dumps. A trimmed log keeps every `str` record and every
record of a kept kind, byte for byte with its payload (so every md5 still matches); whole records of other
kinds are dropped. `expected_counts.json` is computed here, by this script's own parser, from the FULL logs,
so the tests check cwb on the trimmed logs against numbers taken from the untrimmed ones.

    python3 make_insights.py SOURCE_DIR [NAME...]   # SOURCE_DIR holds mlp_cache_cold_cpu/, ...; NAMEs: only those
"""
import glob
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ \S+:\d+\] (\{.*)$")
CONTEXT = {"rank", "frame_id", "frame_compile_id", "attempt", "compiled_autograd_id", "has_payload", "stack"}
CACHE_ARTIFACT = re.compile(r"^(.+)_cache_(hit|miss|bypass)$")
# Kinds kept in a trimmed log (artifact:<name> for artifacts, chromium:<event name> for chromium events).
KEEP = {"str", "dynamo_start", "compilation_metrics", "create_symbol", "create_unbacked_symbol",
        "symbolic_shape_specialization", "guard_added_fast", "artifact:dynamo_graph_break_reason",
        "artifact:recompile_reasons", "artifact:dynamo_error", "artifact:inductor_collective_schedule",
        "chromium:dynamo", "chromium:entire_frame_compile"}
# Cache decisions: the cache artifacts and the compile events whose closing args carry `cache_state` (these
# also carry the cache-key dumps, the bulk of a log, so only the cache logs keep them).
CACHE_EVENTS = {"chromium:backend_compile", "chromium:inductor_compile"}
# name in this folder -> (source folder, keep every record?, keep the cache records (and expect caches)?)
# A folder with a torch.profiler trace (profile.json) gets it copied, and its compiled regions counted; its log
# keeps no chromium events (the runtime join reads the profile, and the log stays under 300 KB).
LOGS = {
    "mlp_cache_cold": ("mlp_cache_cold_cpu", False, True),
    "mlp_cache_warm": ("mlp_cache_warm_cpu", False, True),
    "gpt2_dynamic": ("gpt2_dynamic_cuda", False, False),
    "ddp_gloo_2ranks": ("ddp_gloo_2ranks", True, True),
    "breaks_profile": ("breaks_profile_cpu", False, False),
    "gpt2_train_profile": ("gpt2_train_profile_cuda", False, False),
}
# A larger profile is kept trimmed to the events the runtime join reads (trim_profile); counts come from the whole.
PROFILE_COPY_LIMIT = 1 << 20


def records(path):
    """(header line, payload lines, envelope, kind) per record, in file order."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = RECORD.match(lines[i])
        if not m:
            i += 1
            continue
        k = i + 1
        while k < len(lines) and lines[k].startswith("\t"):
            k += 1
        envelope = json.loads(m.group(1))
        kind = next(key for key in envelope if key not in CONTEXT)
        payload = [line[1:] for line in lines[i + 1:k]]
        if kind == "artifact":
            kind = "artifact:" + envelope["artifact"]["name"]
        elif kind == "chromium_event":
            kind = "chromium:" + json.loads("\n".join(payload)).get("name", "")
        yield lines[i], lines[i + 1:k], envelope, kind, payload
        i = k


def compile_id(envelope):
    if envelope.get("frame_id") is None:
        return None
    key = f"{envelope['frame_id']}/{envelope['frame_compile_id']}"
    return key + (f"_{envelope['attempt']}" if envelope.get("attempt") else "")


def count(path, with_caches):
    """The facts the report must show, per compile id, from one full log."""
    compiles = {}
    failures = []
    attempts = {}
    breaks = 0
    finished, with_graph = [], set()  # tlparse's "empty graph": finished without fail_type, no dynamo graph

    def at(envelope):
        return compiles.setdefault(compile_id(envelope) or "-", {
            "caches": [], "symbols": [], "specializations": 0, "guards_added_fast": 0})

    for _, _, envelope, kind, payload in records(path):
        cid = compile_id(envelope)
        if kind == "dynamo_start" or kind == "compilation_metrics":
            base = f"{envelope.get('frame_id')}/{envelope.get('frame_compile_id')}"
            attempts.setdefault(base, set()).add(envelope.get("attempt") or 0)
        if kind == "compilation_metrics" and envelope["compilation_metrics"].get("fail_type"):
            failures.append({"compile_id": cid, "kind": "failed"})
        if kind == "compilation_metrics" and not envelope["compilation_metrics"].get("fail_type"):
            finished.append(cid)
        if kind == "dynamo_output_graph":
            with_graph.add(cid)
        if kind == "artifact:dynamo_graph_break_reason":
            breaks += 1
        m = CACHE_ARTIFACT.match(kind.removeprefix("artifact:")) if kind.startswith("artifact:") else None
        if m:
            at(envelope)["caches"].append([m.group(1), m.group(2)])
        if kind == "chromium:inductor_compile":
            event = json.loads("\n".join(payload))
            state = event.get("args", {}).get("cache_state")
            if event.get("ph") == "E" and state:
                at(envelope)["caches"].append(["inductor", state])
        if kind in ("create_symbol", "create_unbacked_symbol"):
            s = envelope[kind]
            at(envelope)["symbols"].append([s.get("symbol"), s.get("source", ""), str(s.get("val", ""))])
        if kind == "symbolic_shape_specialization":
            at(envelope)["specializations"] += 1
        if kind == "guard_added_fast":
            at(envelope)["guards_added_fast"] += 1
    for base, seen in attempts.items():
        for attempt in sorted(seen)[:-1]:
            failures.append({"compile_id": base + (f"_{attempt}" if attempt else ""), "kind": "restarted"})
    if not with_caches:
        for facts in compiles.values():
            del facts["caches"]
    return {"compiles": compiles, "failures": failures, "graph_breaks": breaks,
            "empty_graphs": [cid for cid in finished if cid not in with_graph],
            "compile_ids": sorted({k.split("_")[0] for k in compiles if k != "-"} | set(attempts))}


def is_compile_event(name):
    return name == "entire_frame_compile" or name.endswith(" (dynamo_timed)")


def count_profile(path):
    """Per compile id, the "Torch-Compiled Region: F/C" events of a torch.profiler chrome trace: hits, total
    time, compile time (the compile events inside the region: a recompile of a function its eager code called,
    first-call autotuning) and eager time (the region's time outside its own "## Call CompiledFxGraph" calls,
    outside the regions nested in it, such as the resume functions that run after a graph break, and outside
    compiling)."""
    events = [e for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"]
    compiling = {}  # tid -> set of microsecond ticks spent compiling (profiles are small enough for this)
    for e in events:
        if is_compile_event(e.get("name", "")):
            ticks = compiling.setdefault((e.get("pid"), e.get("tid")), [])
            ticks.append((e["ts"], e["ts"] + e["dur"]))

    def compiled_within(thread, start, end):
        spans = sorted(compiling.get(thread, []))
        total, covered_until = 0.0, start
        for s, t in spans:
            s, t = max(s, covered_until), min(t, end)
            if t > s:
                total += t - s
                covered_until = t
        return total

    events.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    regions, open_regions, top_level = {}, {}, 0
    for e in events:
        name = e.get("name", "")
        thread = (e.get("pid"), e.get("tid"))
        stack = open_regions.setdefault(thread, [])
        while stack and stack[-1][1] <= e["ts"]:
            stack.pop()
        is_region = name.startswith("Torch-Compiled Region: ")
        if not is_region and not name.startswith("## Call CompiledFxGraph"):
            continue
        inner_compile = compiled_within(thread, e["ts"], e["ts"] + e["dur"])
        if stack:
            stack[-1][0]["eager_us"] -= e["dur"] - inner_compile
            stack[-1][0]["compile_us"] -= inner_compile
        if is_region:
            r = regions.setdefault(name.split(": ", 1)[1], {"hits": 0, "total_us": 0.0, "eager_us": 0.0,
                                                            "compile_us": 0.0})
            r["hits"] += 1
            r["total_us"] += e["dur"]
            r["eager_us"] += e["dur"] - inner_compile
            r["compile_us"] += inner_compile
            if not stack:
                top_level += 1
            stack.append((r, e["ts"] + e["dur"]))
    return {"regions": regions, "top_level_regions": top_level}


def trim_profile(source, target):
    """A profile the join reads, without the operator events it does not: compiled regions, graph calls and
    compile events, each byte for byte as torch.profiler wrote its fields."""
    profile = json.load(open(source))
    keep = [e for e in profile["traceEvents"] if e.get("ph") == "X" and (
        e.get("name", "").startswith(("Torch-Compiled Region: ", "## Call CompiledFxGraph")) or
        is_compile_event(e.get("name", "")))]
    with open(target, "w") as out:
        json.dump({"traceEvents": keep}, out, indent=0)


def trim(source, target, keep_all, keep_caches, keep_events):
    with open(target, "w", encoding="utf-8") as out:
        for header, payload_lines, _, kind, _ in records(source):
            cache = kind in CACHE_EVENTS or (kind.startswith("artifact:") and
                                             CACHE_ARTIFACT.match(kind.removeprefix("artifact:")))
            if not keep_events and kind.startswith("chromium:"):
                continue
            if keep_all or kind in KEEP or (keep_caches and cache):
                out.write(header + "\n")
                for line in payload_lines:
                    out.write(line + "\n")


def main():
    source_dir = sys.argv[1]
    only = set(sys.argv[2:]) or set(LOGS)
    expected_path = os.path.join(HERE, "expected_counts.json")
    expected = json.load(open(expected_path)) if os.path.exists(expected_path) else {}
    for name, (folder, keep_all, keep_caches) in LOGS.items():
        if name not in only:
            continue
        expected.pop(name, None)
        target_dir = os.path.join(HERE, name)
        shutil.rmtree(target_dir, ignore_errors=True)
        os.makedirs(target_dir)
        profile = os.path.join(source_dir, folder, "profile.json")
        has_profile = os.path.exists(profile)
        for source in sorted(glob.glob(os.path.join(source_dir, folder, "log", "*.log"))):
            base = os.path.basename(source)
            trim(source, os.path.join(target_dir, base), keep_all, keep_caches, not has_profile)
            expected.setdefault(name, {})[base] = count(source, keep_caches)
        if has_profile:
            if os.path.getsize(profile) > PROFILE_COPY_LIMIT:
                trim_profile(profile, os.path.join(target_dir, "profile.json"))
            else:
                shutil.copy(profile, os.path.join(target_dir, "profile.json"))
            expected[name]["profile.json"] = count_profile(profile)
    with open(expected_path, "w") as out:
        json.dump(expected, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
