# requires: cuda
# A language-model head with an unaligned vocabulary (4099 classes) under bf16 autocast, trained compiled against
# eager: the head's linear runs on a weight padded to aligned rows and its output is read in place (shape_padding),
# cross_entropy is generated row kernels over the bf16 logits, and the logits' gradient, read by the head's input
# and weight gradients, is stored with padded rows (comprehensive_padding); loss and gradients equal eager to bf16's
# rounding, over every reduction mode and an ignored row.
# expect: mean True True True
# expect: sum True True True
# expect: none True True True
# expect code: shape_padding: linear
# expect code: comprehensive_padding
# expect code: cwb_red_fused_cross_entropy
# expect no code: functional.cross_entropy(
import torch
import torch.nn.functional as F

torch.manual_seed(0)
vocab, d = 4099, 768
h0 = torch.randn(4, 512, d, device="cuda")
w0 = torch.randn(vocab, d, device="cuda") * 0.02
targets = torch.randint(0, vocab, (4 * 512,), device="cuda")
targets[7] = -100


def step(h, w, t, reduction):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = F.linear(h, w)
        loss = F.cross_entropy(logits.view(-1, vocab).float(), t, reduction=reduction)
    if reduction == "none":
        loss = loss.sum() / 100.0
    return loss


def run(f, reduction):
    h, w = h0.clone().requires_grad_(), w0.clone().requires_grad_()
    loss = f(h, w, targets, reduction)
    loss.backward()
    return loss.detach(), h.grad, w.grad


def close(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item() < 2e-2


compiled = torch.compile(step, options={"force_shape_pad": True})
for reduction in ("mean", "sum", "none"):
    eager, got = run(step, reduction), run(compiled, reduction)
    print(reduction, *[close(g, e) for g, e in zip(got, eager)])
