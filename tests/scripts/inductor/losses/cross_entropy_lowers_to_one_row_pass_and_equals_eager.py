# F.cross_entropy of [N, C] logits and class indices lowers into generated row reductions (max, sum of exp and the
# target's logit in one pass over each row, then the mean over the rows kept), reading 16-bit logits as they are;
# its gradient is one pass over the row after its softmax. Every reduction mode, ignore_index (the default -100
# and another), bfloat16 logits, all rows ignored (nan, as eagerly) and a training step equal eager. (Class weights
# and label smoothing, which the eager runtime does not implement yet, would keep the eager op.)
# expect: forward True
# expect: bfloat16 True
# expect: all ignored nan nan
# expect: training True
# expect code: cwb_red_fused_cross_entropy
# expect no code: functional.cross_entropy(
import torch
import torch.nn.functional as F
from _lib.eager_comparison import eager_and_compiled, same_as_eager

torch.manual_seed(0)
logits = torch.randn(12, 37) * 3.0
targets = torch.tensor([1, 36, 0, -100, 5, 3, 7, 7, 2, 30, -100, 11])
other = torch.tensor([1, 36, 0, 4, 5, 3, 7, 7, 2, 30, 4, 11])


def modes(x, t, u):
    return [F.cross_entropy(x, t), F.cross_entropy(x, t, reduction="sum"), F.cross_entropy(x, t, reduction="none"),
            F.cross_entropy(x * 0.5, u, ignore_index=4), F.cross_entropy(x, u, ignore_index=4, reduction="none")]


with torch.no_grad():
    print("forward", same_as_eager(eager_and_compiled(lambda f: f(logits, targets, other), lambda f: f(modes))))
    half = logits.to(torch.bfloat16)
    print("bfloat16", same_as_eager(eager_and_compiled(lambda f: f(half, targets, other), lambda f: f(modes)), tolerance=2e-2))
    ignored = torch.full((12,), -100)
    none_kept = torch.compile(lambda x, t: F.cross_entropy(x, t))(logits, ignored)
    print("all ignored", F.cross_entropy(logits, ignored).item(), none_kept.item())


def loss_of(w, t):
    return F.cross_entropy(w.to(torch.bfloat16).float() * 2.0, t) + F.cross_entropy(w, t, reduction="sum") * 0.1


def step(f):
    w = logits.clone().requires_grad_()
    loss = f(w, targets)
    loss.backward()
    return [loss.detach(), w.grad]


print("training", same_as_eager([step(loss_of), step(torch.compile(loss_of))]))
