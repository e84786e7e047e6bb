# skip_guard_on_inbuilt_nn_modules_unsafe drops the guards read through torch.nn's own modules (the Linear) but keeps
# those on the user's module, so a changed attribute of the user's module recompiles; skip_guard_on_all_nn_modules_unsafe
# drops those too, and the compiled code keeps the attribute's old value (two classes: one frame cache each).
# expect: 2.0
# expect: 3.0
# expect: 2.0
# expect: 2.0
# expect recompiles: 1
import torch
import torch.nn as nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.scale = 2.0

    def forward(self, x):
        return self.lin(x) * 0.0 + self.scale


class ScaledToo(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.scale = 2.0

    def forward(self, x):
        return self.lin(x) * 0.0 + self.scale


x = torch.ones(1, 2)
builtin = Scaled()
builtin_only = torch.compile(builtin, options={"guard_filter_fn": torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe})
print(builtin_only(x)[0, 0].item())
builtin.scale = 3.0
print(builtin_only(x)[0, 0].item())

every = ScaledToo()
all_modules = torch.compile(every, options={"guard_filter_fn": torch.compiler.skip_guard_on_all_nn_modules_unsafe})
print(all_modules(x)[0, 0].item())
every.scale = 3.0
print(all_modules(x)[0, 0].item())
