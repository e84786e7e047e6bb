# options={"guard_filter_fn": torch.compiler.skip_guard_on_globals_unsafe} drops every guard whose source is a
# global: a changed global no longer recompiles, and the compiled code keeps the value it was traced with (the
# "unsafe" of the name, as in PyTorch); without the filter the same change recompiles.
# expect: [2.0, 2.0]
# expect: [2.0, 2.0]
# expect: [2.0, 2.0]
# expect: [3.0, 3.0]
# expect recompiles: 1
import torch

scale = 2.0


def f(x):
    return x * scale


def g(x):
    return x * scale


filtered = torch.compile(f, options={"guard_filter_fn": torch.compiler.skip_guard_on_globals_unsafe})
guarded = torch.compile(g)
x = torch.ones(2)
print(filtered(x).tolist())
print(guarded(x).tolist())
scale = 3.0
print(filtered(x).tolist())
print(guarded(x).tolist())
