# torch._dynamo.config.skip_nnmodule_hook_guards, as in torch 2.11: by default (True) a module's hook dicts are
# not guarded, so a forward hook registered after the compile is not seen by the cached graph (eager sees it);
# with False they are guarded: registering a hook recompiles (the failed guard is the dict's length: `not G['mod']._forward_hooks` while empty), the
# recompiled graph runs the hook, replacing it by another recompiles again, and removing it finds the first entry.
# expect: True
# expect: [3.0, 3.0] [21.0, 21.0]
# expect: [3.0, 3.0]
# expect: [21.0, 21.0] True
# expect: [-1.0, -1.0] True
# expect: [3.0, 3.0]
# expect unique_graphs: 4
# expect recompiles: 2
# expect graph_breaks: 0
# expect log: not G['mod']._forward_hooks
import torch


class Scale(torch.nn.Module):
    def forward(self, x):
        return x * 2


def times_ten(module, args, output):
    return output * 10


def negate(module, args, output):
    return -output


mod = Scale()
x = torch.ones(2)


def unguarded(x):
    return mod(x) + 1


def guarded(x):
    return mod(x) + 1


print(torch._dynamo.config.skip_nnmodule_hook_guards)
compiled = torch.compile(unguarded, backend="eager")
compiled(x)
handle = mod.register_forward_hook(times_ten)
print(compiled(x).tolist(), unguarded(x).tolist())
handle.remove()

torch._dynamo.config.skip_nnmodule_hook_guards = False
compiled = torch.compile(guarded, backend="eager")
print(compiled(x).tolist())
handle = mod.register_forward_hook(times_ten)
print(compiled(x).tolist(), torch.equal(compiled(x), guarded(x)))
handle.remove()
handle = mod.register_forward_hook(negate)
print(compiled(x).tolist(), torch.equal(compiled(x), guarded(x)))
handle.remove()
print(compiled(x).tolist())
