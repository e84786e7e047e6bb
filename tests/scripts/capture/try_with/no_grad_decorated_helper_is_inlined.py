# A helper decorated with @torch.no_grad() is inlined between two torch._C._set_grad_enabled nodes (as Dynamo
# traces a grad-mode-wrapped function): its result needs no grad, the caller's mode comes back after it.
# expect: False True True
# expect graph_breaks: 0
# expect unique_graphs: 1
# expect graph_code: torch._C._set_grad_enabled(False)
import torch


@torch.no_grad()
def frozen(x, w):
    return x * w


@torch.compile(backend="eager")
def f(x, w):
    a = frozen(x, w)
    b = x * w
    return a, b, torch.is_grad_enabled()


a, b, enabled = f(torch.ones(2), torch.ones(2, requires_grad=True))
print(a.requires_grad, b.requires_grad, enabled)
