# Inductor benchmark (workloads B1-B7, the CPU's pointwise ops and the device's copy bandwidth): eager, torch.compile and reduce-overhead
# times, cold compile times and GB/s. One script for both engines: `python3 inductor_bench.py [SPEC]` (PyTorch)
# and `cwb run inductor_bench.py [--device SPEC]` (cwb calls main(SPEC)); inductor_bench.sh joins the two.
#
# SPEC: comma-separated tokens, e.g. "cuda", "cpu", "cuda,B1,B4bf16", "cpu,small,iters=5" (a leading -- is allowed).
#   cuda | cpu        the device (cwb's default SPEC is "cpu"; PyTorch's is "cuda" when available)
#   small | full      sizes; small is the default on cpu (the full workloads would take minutes there)
#   B1 ... B7, copy   run only these workloads (default: all); gelu, tanh, sigmoid, sin, add: one op on [4096, 4096],
#                     mm: [8192, 1024] @ [1024, 4096] (B4's first product), for the CPU's eager kernels
#   iters=N warmup=N  timed calls (default 50, median taken) and warm-up calls (default 10)
#   modes=M+M         only these of eager, default, reduce-overhead, run in that order (default: all three)
# Output, one line per (workload, mode), parsed by inductor_bench.sh:
#   RESULT <impl> <workload> <mode> median_ms=<x> cold_s=<y> gbps=<z> [tflops=<t>]
#   RESULT <impl> <workload> <mode> error=<message>
# cold_s is the first call (compile included) after a throwaway compile of an unrelated function, so that
# one-time start-up of the compiler (imports, LLVM/NVRTC initialisation) is not charged to the first workload.
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# cwb's torch module has no __version__; PyTorch's always has one.
IMPL = "torch" if hasattr(torch, "__version__") else "cwb"
MODES = ["eager", "default", "reduce-overhead"]
ORDER = ["copy", "B1", "B2", "B3", "B4", "B4bf16", "B5", "B6", "B7", "gelu", "tanh", "sigmoid", "sin", "add", "mm"]


def parse_spec(spec):
    cfg = {"device": "", "small": None, "only": [], "iters": 50, "warmup": 10, "modes": MODES}
    for token in spec.split(","):
        token = token.strip()
        if token.startswith("--"):  # `python3 inductor_bench.py --small` reads as well as `small`
            token = token[2:]
        if token == "":
            continue
        if token == "cuda" or token == "cpu":
            cfg["device"] = token
        elif token == "small":
            cfg["small"] = True
        elif token == "full":
            cfg["small"] = False
        elif token.startswith("iters="):
            cfg["iters"] = int(token[6:])
        elif token.startswith("warmup="):
            cfg["warmup"] = int(token[7:])
        elif token.startswith("modes="):
            requested = token[6:].split("+")
            for mode in requested:
                if mode not in MODES:
                    raise ValueError(f"unknown mode {mode!r} in SPEC token {token!r}")
            cfg["modes"] = [m for m in MODES if m in requested]
        elif token in ORDER:
            cfg["only"].append(token)
        else:
            raise ValueError(f"unknown SPEC token {token!r}")
    if cfg["device"] == "":
        cfg["device"] = "cuda" if torch.cuda.is_available() else "cpu"
    if cfg["small"] is None:
        cfg["small"] = cfg["device"] == "cpu"
    return cfg


def sync(dev):
    if dev == "cuda":
        torch.cuda.synchronize()


def median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2.0


def time_calls(fn, args, dev, iters):
    """Median milliseconds per call. On CUDA each call is bracketed by events and the calls are queued back to
    back (one synchronize at the end), so the time is the GPU's unless the host cannot keep it busy."""
    times = []
    if dev == "cuda":
        events = []
        for i in range(iters):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*args)
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        for pair in events:
            times.append(pair[0].elapsed_time(pair[1]))
    else:
        for i in range(iters):
            t0 = time.perf_counter()
            fn(*args)
            times.append((time.perf_counter() - t0) * 1000.0)
    return median(times)


def randn(shape, dev, dtype):
    return torch.randn(shape, device=dev, dtype=dtype)


def prepare(module, dev, dtype):
    """Inference setup of a module: on the device, in dtype, no parameter requires grad (cwb runs graphs
    eagerly when inputs require grad with grad mode on)."""
    module = module.to(dev)
    module = module.to(dtype)
    module.requires_grad_(False)
    module.eval()
    return module


# ---- workloads: each make_* returns (fn, args, bytes moved by an ideal fused kernel, flops or 0) ----

def b1(x):
    return torch.relu(x * 2 + 1).sin() * torch.sigmoid(x)


def b2(x):
    return torch.softmax(x, dim=-1)


def b3(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b)


def gelu(x):
    return F.gelu(x)


def tanh(x):
    return torch.tanh(x)


def sigmoid(x):
    return torch.sigmoid(x)


def sin(x):
    return torch.sin(x)


def add(x, y):
    return x + y


def mm(a, b):
    return torch.mm(a, b)


def b6(x):
    return x.sum(dim=1), x.mean(dim=0)


class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class SmallMLP(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.fc3 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class Block(nn.Module):
    """Pre-norm transformer block: LayerNorm, causal attention through F.scaled_dot_product_attention, MLP."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        qkv = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def param_count(module):
    total = 0
    for p in module.parameters():
        total += p.numel()
    return total


def make_copy(dev, small):
    n = 2**12 if small else 2**26
    x = randn([n], dev, torch.float32)
    y = torch.empty_like(x)

    def copy(a, b):
        return b.copy_(a)

    return copy, [x, y], 2 * 4 * n, 0


def make_b1(dev, small):
    n = 2**12 if small else 2**26
    return b1, [randn([n], dev, torch.float32)], 2 * 4 * n, 0


def make_b2(dev, small):
    r, c = (64, 128) if small else (8192, 8192)
    return b2, [randn([r, c], dev, torch.float32)], 2 * 4 * r * c, 0


def make_b3(dev, small):
    r, c = (64, 128) if small else (16384, 1024)
    args = [randn([r, c], dev, torch.float32), randn([c], dev, torch.float32), randn([c], dev, torch.float32)]
    return b3, args, 2 * 4 * r * c + 2 * 4 * c, 0


def make_mlp(dev, small, dtype, size):
    rows, d, h = (32, 64, 256) if small else (8192, 1024, 4096)
    model = prepare(MLP(d, h, d), dev, dtype)
    x = randn([rows, d], dev, dtype)
    nbytes = size * (2 * rows * d + param_count(model))
    return model, [x], nbytes, 2 * rows * (d * h + h * d)


def make_b4(dev, small):
    return make_mlp(dev, small, torch.float32, 4)


def make_b4bf16(dev, small):
    return make_mlp(dev, small, torch.bfloat16, 2)


def make_b5(dev, small):
    model = prepare(SmallMLP(256, 256, 10), dev, torch.float32)
    x = randn([8, 256], dev, torch.float32)
    nbytes = 4 * (8 * 256 + 8 * 10 + param_count(model))
    return model, [x], nbytes, 2 * 8 * (256 * 256 + 256 * 256 + 256 * 10)


def make_b6(dev, small):
    r, c = (128, 128) if small else (8192, 8192)
    return b6, [randn([r, c], dev, torch.float32)], 4 * (r * c + r + c), 0


def make_b7(dev, small):
    b, s, d, heads = (2, 16, 64, 4) if small else (8, 512, 768, 12)
    model = prepare(Block(d, heads), dev, torch.bfloat16)
    x = randn([b, s, d], dev, torch.bfloat16)
    tokens = b * s
    flops = 2 * tokens * (d * 3 * d + d * d + 2 * d * 4 * d) + 4 * b * s * s * d
    return model, [x], 2 * (2 * tokens * d + param_count(model)), flops


def make_unary(fn):
    def make(dev, small):
        r, c = (64, 128) if small else (4096, 4096)
        return fn, [randn([r, c], dev, torch.float32)], 2 * 4 * r * c, 0

    return make


def make_add(dev, small):
    r, c = (64, 128) if small else (4096, 4096)
    return add, [randn([r, c], dev, torch.float32), randn([r, c], dev, torch.float32)], 3 * 4 * r * c, 0


def make_mm(dev, small):
    m, k, n = (64, 32, 128) if small else (8192, 1024, 4096)
    args = [randn([m, k], dev, torch.float32), randn([k, n], dev, torch.float32)]
    return mm, args, 4 * (m * k + k * n + m * n), 2 * m * k * n


MAKERS = {"copy": make_copy, "B1": make_b1, "B2": make_b2, "B3": make_b3, "B4": make_b4, "B4bf16": make_b4bf16,
          "B5": make_b5, "B6": make_b6, "B7": make_b7, "gelu": make_unary(gelu), "tanh": make_unary(tanh),
          "sigmoid": make_unary(sigmoid), "sin": make_unary(sin), "add": make_add, "mm": make_mm}


def compiled(fn, mode):
    if mode == "eager":
        return fn
    if mode == "default":
        return torch.compile(fn)
    return torch.compile(fn, mode=mode)


def one_line(message):
    text = " ".join(str(message).split())
    return text if text != "" else "(no message)"


def run_mode(name, mode, cfg):
    dev = cfg["device"]
    torch._dynamo.reset()
    torch.manual_seed(0)
    fn, args, nbytes, flops = MAKERS[name](dev, cfg["small"])
    target = compiled(fn, mode)
    sync(dev)
    t0 = time.perf_counter()
    target(*args)
    sync(dev)
    cold = time.perf_counter() - t0
    for i in range(cfg["warmup"]):
        target(*args)
    sync(dev)
    ms = time_calls(target, args, dev, cfg["iters"])
    line = f"RESULT {IMPL} {name} {mode} median_ms={ms:.4f} cold_s={cold:.3f} gbps={nbytes / (ms * 1e6):.1f}"
    if flops > 0:
        line += f" tflops={flops / (ms * 1e9):.2f}"
    print(line)


def warm_compiler(dev):
    """A throwaway compile, so that the first workload's cold time does not include the compiler's start-up."""
    def warm(x):
        return (x * 3.0 + 1.0).cos()

    fn = torch.compile(warm)
    fn(torch.randn([64], device=dev))
    sync(dev)
    torch._dynamo.reset()


def main(spec="cpu"):
    cfg = parse_spec(spec)
    dev = cfg["device"]
    names = cfg["only"] if len(cfg["only"]) > 0 else ORDER
    name = torch.cuda.get_device_name() if dev == "cuda" else "cpu"
    size = "small" if cfg["small"] else "full"
    print(f"DEVICE {IMPL} {name} sizes={size} iters={cfg['iters']} warmup={cfg['warmup']}")
    with torch.no_grad():
        if cfg["modes"] != ["eager"]:
            try:
                warm_compiler(dev)
            except Exception as e:
                print(f"WARN {IMPL} compiler warm-up failed: {one_line(e)}")
        for name in names:
            modes = ["eager"] if name == "copy" else cfg["modes"]
            for mode in modes:
                try:
                    run_mode(name, mode, cfg)
                except Exception as e:
                    print(f"RESULT {IMPL} {name} {mode} error={type(e).__name__}: {one_line(e)}")


if IMPL == "torch" and __name__ == "__main__":
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else "")
