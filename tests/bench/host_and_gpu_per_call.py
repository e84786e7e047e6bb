# B5 (SmallMLP [8, 256]) and `x + 1` compiled on CUDA: host microseconds a call (500 calls, no sync inside), the same
# with the final synchronize, and GPU microseconds a call (events around 500 calls), for default and reduce-overhead;
# then SPEC seconds of compiled B5 calls for a sampling profile (host_profile/sampler.c):
# `cwb run tests/bench/host_and_gpu_per_call.py --device 3` (see host_profile/report.py).
import time
import torch

from inductor_bench import SmallMLP  # B5


def tiny(x):
    return x + 1

def measure(fn, x, n):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(n):
        fn(x)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    for i in range(n):
        fn(x)
    e.record()
    torch.cuda.synchronize()
    return (t1 - t0) * 1e6 / n, (t2 - t0) * 1e6 / n, s.elapsed_time(e) * 1e3 / n

def main(spec=""):
    secs = float(spec) if spec != "" else 2.0
    with torch.no_grad():
        m = SmallMLP(256, 256, 10).to("cuda")
        m.requires_grad_(False)
        m.eval()
        x = torch.randn([8, 256], device="cuda")
        t = torch.randn([8], device="cuda")
        for mode in ["default", "reduce-overhead"]:
            for name, fn, arg in [("B5", m, x), ("tiny", tiny, t)]:
                torch._dynamo.reset()
                c = torch.compile(fn) if mode == "default" else torch.compile(fn, mode=mode)
                for i in range(30):
                    c(arg)
                r = [measure(c, arg, 500) for k in range(3)]
                print(f"DIAG {name} {mode} host_us={r[1][0]:.1f} host_sync_us={r[1][1]:.1f} gpu_us={r[1][2]:.1f}")
                if name == "B5" and mode == "default":
                    print("PROFILE_START")
                    t0 = time.perf_counter()
                    k = 0
                    while time.perf_counter() - t0 < secs:
                        for i in range(200):
                            c(arg)
                        k += 200
                    torch.cuda.synchronize()
                    print(f"PROFILE_END calls={k} us_per_call={(time.perf_counter() - t0) * 1e6 / k:.1f}")

