# Splits sampler.c's samples of a compiled B5 loop (tests/bench/host_and_gpu_per_call.py) into the parts of a call: the
# cuBLASLt matmuls (driver, libc, cuBLASLt), our linear wrapper, allocation, the graph's bookkeeping, guards and the
# frame: python3 call_parts.py SAMPLES.txt CWB_UNSTRIPPED [PART_PREFIX] (the prefix also lists that part's leaves).
import collections, os, subprocess, sys
path, binary = sys.argv[1], sys.argv[2]
# Leaf offsets in the device's libc of the futex wait inside pthread_mutex_lock: a first call waiting for the cuBLAS
# prewarm (a one-time wait, not the call's cost). Found with objdump on that libc (glibc of the H100 host image).
futexWaits = {0x9904e, 0x98fe9}
maps, samples = [], []
for line in open(path):
    if line.startswith("M "):
        p = line[2:].split(); lo, hi = (int(x, 16) for x in p[0].split("-")); maps.append((lo, hi, int(p[2], 16), p[5] if len(p) > 5 else "?"))
    elif line.startswith("S"): samples.append([int(x, 16) for x in line.split()[1:]][2:])
def where(a):
    for lo, hi, off, name in maps:
        if lo <= a < hi: return os.path.basename(name), a - lo + off
    return "?", a
addrs = sorted({where(a)[1] for s in samples for a in s if where(a)[0] == "cwb"})
sym = {}
for i in range(0, len(addrs), 4000):
    chunk = addrs[i:i+4000]
    out = subprocess.run(["addr2line", "-f", "-C", "-e", binary] + [hex(a - 1) for a in chunk], capture_output=True, text=True).stdout.split("\n")
    for j, a in enumerate(chunk): sym[a] = out[2*j]
named, waits = [], []
for s in samples:
    l0, o0 = where(s[0]) if s else ("?", 0)
    waits.append(l0.startswith("libc.so") and o0 in futexWaits)
    names = []
    for a in s:
        l, o = where(a)
        names.append(sym.get(o, "?") if l == "cwb" else "[" + l.split(".so")[0] + "]")
    named.append(names)
# the steady loop: stacks through the compiled frame's call, none through a compile
steady = [n for n, wait in zip(named, waits) if not wait and any("CaptureEngine::runCompiled" in f or "CompiledGraph::run" in f for f in n)
          and not any(k in f for f in n for k in ("compileEntry", "Backend::compile", "fastestCandidate", "makePlan", "CapturedGraph::capture", "replay"))
          ]
rules = [
    ("cuBLASLt matmul: driver (launch)", lambda n: any("runPlan" in f for f in n) and n[0].startswith("[libcuda")),
    ("cuBLASLt matmul: libc", lambda n: any("runPlan" in f for f in n) and n[0] == "[libc]"),
    ("cuBLASLt matmul: cuBLASLt", lambda n: any("runPlan" in f for f in n)),
    ("cuda::linearLt outside the matmul (locks, plan lookup, bias pointer)", lambda n: any("eng::cuda::linearLt" in f for f in n)),
    ("tensor linearLt: output allocation", lambda n: any("cudaops::linearLt" in f for f in n) and any(k in f for f in n for k in ("empty", "allocate", "Storage"))),
    ("tensor linearLt: rest (contiguous, deferral)", lambda n: any("cudaops::linearLt" in f for f in n)),
    ("extern call: VM values and checks (runExtern)", lambda n: any("runExtern" in f for f in n)),
    ("freeing buffers (Storage release)", lambda n: any("~Storage" in f or "CudaBackend::release" in f or "DeviceContext::release" in f for f in n)),
    ("graph: inputs, outputs, layouts (runPlain/run)", lambda n: any("CompiledGraph::run" in f for f in n)),
    ("guards", lambda n: any("GuardTree" in f or "SourceValues" in f or "readSource" in f for f in n)),
    ("frame: cache lookup, inputs, rebuild (runCompiled)", lambda n: True),
]
counts = collections.Counter()
for n in steady:
    for label, rule in rules:
        if rule(n):
            counts[label] += 1
            break
print(f"samples {len(samples)}, steady loop {len(steady)}")
for label, _ in rules: print(f"{100 * counts[label] / max(1, len(steady)):5.1f}%  {label}")

if len(sys.argv) > 3:
    sub = collections.Counter()
    for n in steady:
        for label, rule in rules:
            if rule(n):
                if label.startswith(sys.argv[3]):
                    cwbf = [f for f in n if not f.startswith("[")]
                    sub[(n[0][:60], cwbf[0][:100] if cwbf else "?")] += 1
                break
    for k, c in sub.most_common(25): print(f"{100 * c / len(steady):5.1f}% {k}")
