# F.cross_entropy on cuda with a target outside [0, C) that is not ignore_index: eager and compiled losses check
# their targets in a kernel that asserts on the device (never waiting for it, as PyTorch's kernels assert), and the
# next synchronisation (.tolist(), a copy to the host, torch.cuda.synchronize()) raises the CPU's IndexError, where
# PyTorch raises "CUDA error: device-side assert triggered" and leaves the device unusable. Never a NaN loss.
# requires: cuda
# expect: valid and ignored rows True
# expect: eager IndexError Target 7 is out of bounds.
# expect: compiled IndexError Target 7 is out of bounds.
# expect: eager IndexError Target 9 is out of bounds.
# expect: compiled IndexError Target 9 is out of bounds.
# expect: training compiled IndexError Target 7 is out of bounds.
# expect: synchronize IndexError Target 9 is out of bounds.
# expect: clean after raising True
# expect code: check_class_targets
# expect graph_breaks: 0
import torch
import torch.nn.functional as F
from _lib.eager_comparison import same_as_eager

torch.manual_seed(0)
logits = torch.randn(5, 7, device="cuda")


def loss(x, t):
    return F.cross_entropy(x, t)


def none_loss(x, t):
    return F.cross_entropy(x, t, ignore_index=-1, reduction="none")


compiled, compiled_none = torch.compile(loss), torch.compile(none_loss)
good, kept = torch.tensor([1, 6, 0, 2, 3], device="cuda"), torch.tensor([-1, 2, -1, 0, 6], device="cuda")
cases = [(loss, compiled, torch.tensor([1, 7, 0, 2, 3], device="cuda")), (none_loss, compiled_none, torch.tensor([-1, 2, 9, 0, 6], device="cuda"))]
with torch.no_grad():
    print("valid and ignored rows", same_as_eager([[loss(logits, good), none_loss(logits, kept)],
                                                   [compiled(logits, good), compiled_none(logits, kept)]]))
    for eager_fn, compiled_fn, targets in cases:
        for name, fn in [("eager", eager_fn), ("compiled", compiled_fn)]:
            try:
                print(name, fn(logits, targets).tolist())
            except IndexError as e:
                print(name, type(e).__name__, e)

w = logits.clone().requires_grad_()
compiled(w * 2.0, good).backward()
try:
    compiled(w * 2.0, torch.tensor([1, 7, 0, 2, 3], device="cuda")).backward()
    print("training compiled", w.grad)
except IndexError as e:
    print("training compiled", type(e).__name__, e)

# The error comes at a synchronisation (at the latest torch.cuda.synchronize()), once.
with torch.no_grad():
    try:
        pending = compiled_none(logits, torch.tensor([-1, 2, 9, 0, 6], device="cuda"))
        torch.cuda.synchronize()
        print("synchronize raised nothing")
    except IndexError as e:
        print("synchronize", type(e).__name__, e)
    torch.cuda.synchronize()
    print("clean after raising", same_as_eager([[none_loss(logits, kept)], [compiled_none(logits, kept)]]))
