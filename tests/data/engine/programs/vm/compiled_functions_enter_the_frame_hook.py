# torch.compile's wrappers (a decorated function, a compiled module, Module.compile) call the VM's frame hook; a
# plain function does not (read by tests/unit/engine/vm/torch_test.cpp, which installs the hooks).
import torch
import torch.nn as nn
@torch.compile(fullgraph=True)
def f(x, k=2):
    return x * k
def plain(x):
    return x + 1
class M(nn.Module):
    def forward(self, x):
        return x - 1
cm = torch.compile(M())
m2 = M()
m2.compile(dynamic=False)
def main(device):
    return [f(3), plain(3), cm(5), f.__name__, m2(7)]
