# The GPT-2 head's input gradient, dX = dlogits @ W, in bf16 (fp32 accumulation), unpadded (k=50257) against k
# padded to 50264 (operands padded with zeros, the gradient read in place from rows of 50304), each against a
# float64 product of the same bf16 operands: which is further from the truth, per batch size (2048 and 8192 rows).
# `cwb run tests/bench/bf16_head_gradient_precision.py --device cuda` and, for PyTorch (which also prints the error
# with reduced-precision reductions disallowed, and the cuBLAS kernels of both forms),
# `python3 -c 'import bf16_head_gradient_precision as b; b.main("cuda")'` from tests/bench.
import torch
import torch.nn.functional as F

IMPL = "torch" if hasattr(torch, "__version__") else "cwb"


def rel(x, ref):
    return float((x.double() - ref).norm() / ref.norm())


def main(dev="cuda"):
    V, D = (50257, 768) if dev != "cpu" else (1001, 64)
    for M in (2048, 8192):
        if dev == "cpu":
            M = 64
        torch.manual_seed(0)
        W = torch.randn(V, D, device=dev) * 0.02
        h = torch.randn(M, D, device=dev)
        t = torch.randint(0, V, (M,), device=dev)
        g = torch.softmax(h @ W.t(), -1)
        g[torch.arange(M, device=dev), t] -= 1.0
        g = g / M
        gb, Wb = g.bfloat16(), W.bfloat16()
        ref = gb.double() @ Wb.double()
        wide = torch.zeros(M, 50304 if dev != "cpu" else V + 47, device=dev, dtype=torch.bfloat16)
        wide[:, :V] = gb
        Kp = V + 7
        Wp = F.pad(Wb, (0, 0, 0, Kp - V))
        plain = gb @ Wb
        inplace = wide[:, :Kp] @ Wp
        padded = F.pad(gb, (0, Kp - V)) @ Wp
        f32 = (gb.float() @ Wb.float())
        print(f"HEADGRAD {IMPL} M={M} plain={rel(plain, ref):.3e} padded_inplace={rel(inplace, ref):.3e} padded={rel(padded, ref):.3e} "
              f"f32={rel(f32, ref):.3e} plain_vs_padded={float((plain.double() - inplace.double()).norm() / ref.norm()):.3e}", flush=True)
        if IMPL == "torch":
            m = torch.backends.cuda.matmul
            old = m.allow_bf16_reduced_precision_reduction
            m.allow_bf16_reduced_precision_reduction = False
            print(f"HEADGRAD torch M={M} (default allow_bf16_reduced_precision_reduction={old}) no-reduced: plain={rel(gb @ Wb, ref):.3e} "
                  f"padded_inplace={rel(wide[:, :Kp] @ Wp, ref):.3e}", flush=True)
            m.allow_bf16_reduced_precision_reduction = old
            from torch.profiler import profile, ProfilerActivity
            for name, fn in (("plain", lambda: gb @ Wb), ("padded", lambda: wide[:, :Kp] @ Wp)):
                fn()
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as p:
                    fn()
                    torch.cuda.synchronize()
                print(f"KERNELS torch M={M} {name}: " + "; ".join(f"{e.key[:90]} {e.device_time_total:.0f}us" for e in p.key_averages()), flush=True)
