# Training-step benchmark for AOT Autograd: forward + backward + optimizer step, eager and compiled (aot_eager, the
# inductor, the inductor with compiled autograd), median step time, tokens/s and the first compiled step (compile
# included). One script for both engines: `python3 -c 'import aot_training_bench as b; b.main("SPEC")'` (PyTorch)
# and `cwb run aot_training_bench.py --device SPEC` (cwb calls main(SPEC)).
# SPEC: comma-separated tokens: cpu | cuda, iters=N (default 20), warmup=N (default 3), the workloads to run
# (mlp, block, gpt2; default mlp and block; ops: GPT-2's heaviest eager ops one by one), tiny (a GPT-2 of 2 layers, d=64, 64 tokens: the CPU smoke size).
# For finding where compiled and eager part (gpt2): layers=N, fp32 (no autocast), eager_step (the compiled modes keep
# opt.step eager), modes=a+b (only these modes); LOSSES lines give every step's loss.
# Output: RESULT <impl> <model> <mode> median_ms=<x> first_s=<y> tokens_per_s=<t> forward_ms= backward_ms= step_ms=
#   (medians of each phase, the device synchronised between them) first_loss=<first step's> loss=<last step's>
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 512)
        self.fc2 = nn.Linear(512, 512)
        self.fc3 = nn.Linear(512, 10)

    def forward(self, x, y):
        h = F.relu(self.fc1(x))
        h = F.gelu(self.fc2(h))
        return F.cross_entropy(self.fc3(h), y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(128)
        self.qkv_q = nn.Linear(128, 128)
        self.qkv_k = nn.Linear(128, 128)
        self.qkv_v = nn.Linear(128, 128)
        self.proj = nn.Linear(128, 128)
        self.ln2 = nn.LayerNorm(128)
        self.up = nn.Linear(128, 512)
        self.down = nn.Linear(512, 128)
        self.head = nn.Linear(128, 64)

    def forward(self, x, y):
        b, t, c = x.shape
        h = self.ln1(x)
        q = self.qkv_q(h).view(b, t, 4, 32).transpose(1, 2)
        k = self.qkv_k(h).view(b, t, 4, 32).transpose(1, 2)
        v = self.qkv_v(h).view(b, t, 4, 32).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * 0.1767766952966369
        att = att.masked_fill(torch.ones(t, t).tril() == 0, -1e9).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))
        x = x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))
        return F.cross_entropy(self.head(x).view(b * t, 64), y)


# GPT-2 small's shape (the defaults): pre-LayerNorm blocks, causal scaled_dot_product_attention, tanh-GELU MLP,
# learned positions, the output head tied to the token embedding, GPT-2's initialisation; no dropout.
class GPT2Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, d))


class GPT2Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = GPT2Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.c_fc = nn.Linear(d, 4 * d)
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    def __init__(self, layers=12, d=768, heads=12, context=1024, vocab=50257):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.h = nn.ModuleList([GPT2Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets):
        b, t = idx.shape
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


GPT2_FULL = {"layers": 12, "d": 768, "heads": 12, "context": 1024, "vocab": 50257, "batch": 8}
GPT2_TINY = {"layers": 2, "d": 64, "heads": 4, "context": 64, "vocab": 256, "batch": 2}


def median(values):
    s = sorted(values)
    return s[len(s) // 2]


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def forward_backward(model, *inputs):
    loss = model(*inputs)
    loss.backward()
    return loss


class Phases:
    """Wall time of a step's phases (forward, backward, optimizer step), synchronising the device at each mark."""

    def __init__(self, device):
        self.device = device
        self.times = {}

    def start(self):
        sync(self.device)
        self.t = time.perf_counter()

    def mark(self, phase):
        sync(self.device)
        now = time.perf_counter()
        self.times.setdefault(phase, []).append(now - self.t)
        self.t = now


def bench(workload, mode, cfg):
    torch._dynamo.reset()  # each mode compiles afresh (the cache is per code object, whatever the backend)
    torch.manual_seed(0)
    device = cfg["device"]
    model = workload["make"]().to(device)
    inputs = [x.to(device) for x in workload["inputs"]]
    # compiled_autograd: forward and backward in one compiled function, the backward captured as a graph of its own
    torch._dynamo.config.compiled_autograd = mode == "compiled_autograd"
    if mode == "compiled_autograd":
        compiled = torch.compile(forward_backward, backend="inductor")
        forward = lambda *xs: compiled(model, *xs)
    else:
        run = model if mode == "eager" else torch.compile(model, backend=mode)
        forward = run
        if workload["autocast"] and not cfg["fp32"]:
            # bf16 autocast around the forward, the backward outside it (PyTorch's AMP recipe)
            def forward(*xs):
                with torch.autocast(device, dtype=torch.bfloat16):
                    return run(*xs)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=workload["fused"])
    # GPT-2's compiled modes compile the optimizer step too (torch.compile(opt.step)), as a compiled training loop does
    compile_step = workload["compiled_step"] and mode != "eager" and not cfg["eager_step"]
    step = torch.compile(opt.step, backend="inductor") if compile_step else opt.step
    phases = Phases(device)
    losses = []
    for i in range(cfg["warmup"] + cfg["iters"]):
        phases.start()
        opt.zero_grad()
        loss = forward(*inputs)
        phases.mark("forward")
        if mode != "compiled_autograd":
            loss.backward()
        phases.mark("backward")
        step()
        phases.mark("step")
        losses.append(float(loss.detach()))
    torch._dynamo.config.compiled_autograd = False
    per_step = [sum(t) for t in zip(*phases.times.values())]
    split = {phase: median(times[cfg["warmup"]:]) for phase, times in phases.times.items()}
    return median(per_step[cfg["warmup"]:]), per_step[0], split, losses


def gpt2_ops(cfg):
    """Median ms of the GPT-2 step's heaviest eager ops at its shapes (bf16 as autocast runs them), each on its own:
    where the time of an eager step (and of a compiled step's extern calls) goes."""
    g = GPT2_TINY if cfg["tiny"] else GPT2_FULL
    device, b, t, d, h, v = cfg["device"], g["batch"], g["context"], g["d"], g["heads"], g["vocab"]
    bf16 = torch.bfloat16
    x = torch.randn(b * t, d, device=device, dtype=bf16)
    w_qkv = torch.randn(3 * d, d, device=device, dtype=bf16)
    w_head = torch.randn(v, d, device=device, dtype=bf16)
    q = torch.randn(b, h, t, d // h, device=device, dtype=bf16)
    logits = torch.randn(b * t, v, device=device)
    targets = torch.randint(0, v, (b * t,), device=device)
    idx = torch.randint(0, v, (b, t), device=device)
    table = torch.randn(v, d, device=device)
    ln = nn.LayerNorm(d).to(device)
    xf = torch.randn(b, t, d, device=device)
    zeros = torch.zeros(v, d, device=device)
    rows = torch.randn(b * t, d, device=device)
    ops = [
        ("linear_qkv", lambda: F.linear(x, w_qkv)),
        ("linear_head", lambda: F.linear(x, w_head)),
        ("sdpa_causal", lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True)),
        ("cross_entropy", lambda: F.cross_entropy(logits, targets)),
        ("embedding", lambda: F.embedding(idx, table)),
        ("layer_norm", lambda: ln(xf)),
        ("gelu_tanh", lambda: F.gelu(xf, approximate="tanh")),
        ("to_bf16", lambda: table.to(bf16)),
        ("index_put_accumulate", lambda: torch.index_put(zeros, (idx.view(-1),), rows, True)),
    ]
    with torch.no_grad():
        for name, op in ops:
            times = []
            for i in range(cfg["warmup"] + cfg["iters"]):
                sync(device)
                t0 = time.perf_counter()
                op()
                sync(device)
                times.append(time.perf_counter() - t0)
            print(f"OP {IMPL} {name} median_ms={median(times[cfg['warmup']:]) * 1000.0:.3f}", flush=True)


def parse_spec(spec):
    cfg = {"iters": 20, "warmup": 3, "device": "cpu", "only": [], "tiny": False, "layers": None, "fp32": False,
           "eager_step": False, "modes": None}
    for token in spec.split(","):
        token = token.strip()
        if token == "":
            continue
        if token in ("cpu", "cuda"):
            cfg["device"] = token
        elif token.startswith("iters="):
            cfg["iters"] = int(token[6:])
        elif token.startswith("warmup="):
            cfg["warmup"] = int(token[7:])
        elif token in ("tiny", "fp32", "eager_step"):
            cfg[token] = True
        elif token.startswith("layers="):
            cfg["layers"] = int(token[7:])
        elif token.startswith("modes="):
            cfg["modes"] = token[6:].split("+")
        elif token in ("mlp", "block", "gpt2", "ops"):
            cfg["only"].append(token)
        else:
            raise ValueError(f"unknown SPEC token {token!r}")
    if not cfg["only"]:
        cfg["only"] = ["mlp", "block"]
    return cfg


def workloads(cfg):
    torch.manual_seed(1)
    g = dict(GPT2_TINY if cfg["tiny"] else GPT2_FULL)
    if cfg["layers"] is not None:
        g["layers"] = cfg["layers"]
    shape = (g["batch"], g["context"])
    return {
        "mlp": {"make": MLP, "inputs": (torch.randn(64, 256), torch.randint(0, 10, (64,))), "tokens": 64,
                "autocast": False, "fused": False, "compiled_step": False,
                "modes": ["eager", "aot_eager", "inductor", "compiled_autograd"]},
        "block": {"make": Block, "inputs": (torch.randn(4, 32, 128), torch.randint(0, 64, (128,))), "tokens": 128,
                  "autocast": False, "fused": False, "compiled_step": False,
                  "modes": ["eager", "aot_eager", "inductor", "compiled_autograd"]},
        "gpt2": {"make": lambda: GPT2(g["layers"], g["d"], g["heads"], g["context"], g["vocab"]),
                 "inputs": (torch.randint(0, g["vocab"], shape), torch.randint(0, g["vocab"], shape)),
                 "tokens": g["batch"] * g["context"], "autocast": True, "fused": True, "compiled_step": True,
                 "modes": ["eager", "inductor"]},
    }


def main(spec="cpu"):
    cfg = parse_spec(spec)
    if cfg["device"] == "cuda":
        print(f"DEVICE {IMPL} {torch.cuda.get_device_name()}")
    if "ops" in cfg["only"]:
        gpt2_ops(cfg)
    table = workloads(cfg)
    for name in [w for w in cfg["only"] if w != "ops"]:
        workload = table[name]
        for mode in cfg["modes"] or workload["modes"]:
            median_s, first, split, losses = bench(workload, mode, cfg)
            ms = " ".join(f"{phase}_ms={seconds * 1000.0:.3f}" for phase, seconds in split.items())
            print(f"RESULT {IMPL} {name} {mode} median_ms={median_s * 1000.0:.3f} first_s={first:.3f} "
                  f"tokens_per_s={workload['tokens'] / median_s:.0f} {ms} first_loss={losses[0]:.4f} "
                  f"loss={losses[-1]:.4f}", flush=True)
            print(f"LOSSES {IMPL} {name} {mode} " + " ".join(f"{x:.4f}" for x in losses), flush=True)


if __name__ == "__main__" and IMPL == "torch":  # (cwb calls main(SPEC) itself)
    import sys

    main(sys.argv[1] if len(sys.argv) > 1 else "cpu")
