# Deleting from nn.Modules as PyTorch does: `del module.sub` / delattr of a parameter or buffer leaves
# parameters(), state_dict() and children() too; ModuleDict's del and pop, ModuleList's del (renumbered) and
# ParameterDict's del, pop and clear.
# expect: ['scale', 'fc.weight', 'fc.bias']
# expect: ['scale'] []
# expect: ['steps']
# expect: []
# expect: AttributeError 'Net' object has no attribute 'fc'
# expect: ['b'] True 2
# expect: KeyError 'a'
# expect: ['0', '1'] 2.0
# expect: ['b'] ['b'] 3
# expect: 0 []
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.scale = nn.Parameter(torch.ones(1))
        self.register_buffer("steps", torch.zeros(1))
        self.note = "plain"


net = Net()
print([n for n, _ in net.named_parameters()])
del net.fc
print([n for n, _ in net.named_parameters()], list(net.children()))
delattr(net, "scale")
print([k for k in net.state_dict()])
del net.steps
del net.note
print([k for k in net.state_dict()])
try:
    net.fc
except AttributeError as e:
    print("AttributeError", e)

md = nn.ModuleDict({"a": nn.Identity(), "b": nn.ReLU(), "c": nn.Tanh()})
del md["a"]
popped = md.pop("c")
print(list(md.keys()), isinstance(popped, nn.Tanh), len(md) + 1)
try:
    del md["a"]
except KeyError as e:
    print("KeyError", e)

ml = nn.ModuleList([nn.Identity(), nn.ReLU(), nn.Linear(1, 1, bias=False)])
with torch.no_grad():
    ml[2].weight.fill_(2.0)
del ml[1]
print([n for n, _ in ml.named_children()], ml[1].weight.item())

pd = nn.ParameterDict({"a": torch.ones(1), "b": torch.ones(2), "c": torch.ones(3)})
del pd["a"]
taken = pd.pop("c")
print(list(pd.keys()), [n for n, _ in pd.named_parameters()], taken.numel())
pd.clear()
print(len(pd), list(pd.parameters()))
