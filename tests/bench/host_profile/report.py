# Symbolizes sampler.c's samples against the unstripped cwb the bundle was made from (addr2line), filtered to stacks
# through one function: python3 report.py SAMPLES.txt CWB_UNSTRIPPED [FRAME_SUBSTRING]; prints leaf, library-under-
# first-cwb-frame and inclusive shares. Frames in other libraries are named by library.
import collections, subprocess, sys, os
path, binary = sys.argv[1], sys.argv[2]
filt = sys.argv[3] if len(sys.argv) > 3 else None
maps, samples = [], []
for line in open(path):
    if line.startswith("M "):
        p = line[2:].split()
        lo, hi = (int(x, 16) for x in p[0].split("-"))
        maps.append((lo, hi, int(p[2], 16), p[5] if len(p) > 5 else "?"))
    elif line.startswith("S"):
        samples.append([int(x, 16) for x in line.split()[1:]])
CWB_NAMES = {"cwb", os.path.basename(binary)}  # the bundle's name, or the local copy's


def where(a):
    for lo, hi, off, name in maps:
        if lo <= a < hi: return name, a - lo + off
    return "?", a
addrs = set()
for s in samples:
    for a in s:
        n, o = where(a)
        if os.path.basename(n) in CWB_NAMES: addrs.add(o)
addrs = sorted(addrs)
sym = {}
for i in range(0, len(addrs), 5000):
    chunk = addrs[i:i+5000]
    out = subprocess.run(["addr2line", "-f", "-C", "-e", binary] + [hex(a - 1) for a in chunk], capture_output=True, text=True).stdout.split("\n")
    for j, a in enumerate(chunk): sym[a] = out[2*j][:150]
def name(a):
    n, o = where(a)
    if os.path.basename(n) in CWB_NAMES: return sym.get(o, "?")
    return "[" + os.path.basename(n) + "]"
named = [[name(a) for a in s] for s in samples]
# drop the 2 sampler frames (handler, sigreturn)
named = [s[2:] for s in named]
if filt: named = [s for s in named if any(filt in f for f in s)]
N = len(named); print("samples", len(samples), "kept", N)
leaf = collections.Counter(s[0] for s in named if s)
incl = collections.Counter()
for s in named:
    for f in set(s): incl[f] += 1
firstcwb = collections.Counter()
for s in named:
    lib = s[0] if s and s[0].startswith("[") else None
    c = next((f for f in s if not f.startswith("[")), "?")
    firstcwb[(lib or "self") + " <- " + c] += 1
print("== leaf"); [print(f"{100*c/N:5.1f}% {k}") for k, c in leaf.most_common(30)]
print("== leaf lib <- first cwb frame"); [print(f"{100*c/N:5.1f}% {k}") for k, c in firstcwb.most_common(40)]
print("== inclusive"); [print(f"{100*c/N:5.1f}% {k}") for k, c in incl.most_common(90)]
