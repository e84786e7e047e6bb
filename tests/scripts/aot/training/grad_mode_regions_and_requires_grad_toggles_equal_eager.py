# Grad-mode regions and requires_grad toggles of a compiled training function, against eager: a no_grad block and an
# inference_mode block inside it (their values carry no gradient), a bias frozen with requires_grad_(False) between
# calls and thawed again, and a call under torch.no_grad(). Each state compiles once: the frozen bias fails Dynamo's
# requires_grad guard of the first entry and the no_grad call its grad_mode guard; thawing the bias reuses the
# first entry (2 recompiles), and only the two training states have AOT joint graphs.
# expect: True
# expect: flags [0.0, 0.0, 1.0] [0.0, 0.0, 1.0]
# expect recompiles: 2
# expect code_count 2: # AOT Autograd: joint graph
# expect log: tensor 'b' requires_grad mismatch. expected requires_grad=1
# expect log: GLOBAL_STATE changed: grad_mode
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager


def step(x, w, b):
    h = torch.tanh(x @ w + b)
    with torch.no_grad():
        scale = h.abs().mean() + 1.0
    with torch.inference_mode():
        shift = (h * 0.5).sum()
    return (h * scale).sum() + shift, scale, shift


def run(fn):
    torch.manual_seed(3)
    x = torch.randn(4, 3)
    w = torch.randn(3, 5, requires_grad=True)
    b = torch.randn(5, requires_grad=True)
    loss, scale, shift = fn(x, w, b)
    loss.backward()
    out = [loss.detach(), w.grad.clone(), b.grad.clone()]
    flags.append([float(scale.requires_grad), float(shift.requires_grad), float(loss.requires_grad)])
    b.requires_grad_(False)
    w.grad = None
    loss, _, _ = fn(x, w, b)
    loss.backward()
    out += [loss.detach(), w.grad.clone(), torch.tensor(float(loss.requires_grad))]
    b.requires_grad_(True)
    w.grad = None
    b.grad = None
    loss, _, _ = fn(x, w, b)
    loss.backward()
    out += [loss.detach(), w.grad.clone(), b.grad.clone()]
    with torch.no_grad():
        loss, _, _ = fn(x, w, b)
    out += [loss, torch.tensor(float(loss.requires_grad))]
    return out


flags = []
print(same_as_eager(eager_and_compiled(step, run)))
print("flags", flags[0], flags[1])
