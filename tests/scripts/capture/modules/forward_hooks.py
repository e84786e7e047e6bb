# Forward hooks as torch 2.11 runs them under torch.compile: a submodule's pre-hook and hook (with kwargs too)
# present when the frame is traced are inlined into its graph; the compiled module's own pre-hook runs outside
# its forward and is compiled as a frame of its own; a hook on the compiled wrapper runs eagerly around it; a
# handle (or its with-block) removes its hook.
# expect: True
# expect: [0.0, 1.0, 2.0]
# expect: [3.0, 4.0, 5.0]
# expect: [200.0, 202.0, 204.0]
# expect: [200.0, 202.0, 204.0]
# expect unique_graphs: 3
# expect recompiles: 1
# expect graph_breaks: 0
# expect compiles: 0/0 forward, 1/0 outer_pre_hook, 0/1 forward
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Identity()

    def forward(self, x, scale=1.0):
        return self.inner(x) * scale


def double_input(module, args):
    return (args[0] * 2,)


def add_offset(module, args, kwargs, output):
    return output + 3


def outer_pre_hook(module, args, kwargs):
    return (args[0] + 100,), {"scale": 2.0}


x = torch.arange(3, dtype=torch.float32)
net = Net()
pre = net.inner.register_forward_pre_hook(double_input)
post = net.inner.register_forward_hook(add_offset, with_kwargs=True)
eager = net(x)
print(torch.equal(torch.compile(net, backend="eager")(x), eager))
pre.remove()
post.remove()
print(net(x).tolist())
with net.inner.register_forward_hook(add_offset, with_kwargs=True):
    print(net(x).tolist())

hooked = Net()
hooked.register_forward_pre_hook(outer_pre_hook, with_kwargs=True)
print(torch.compile(hooked, backend="eager")(x).tolist())
wrapper = torch.compile(Net(), backend="eager")
wrapper.register_forward_pre_hook(outer_pre_hook, with_kwargs=True)
print(wrapper(x).tolist())
