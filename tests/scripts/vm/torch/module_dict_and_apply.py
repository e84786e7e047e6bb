# nn.ModuleDict keeps its modules in order and registers their parameters; Module.apply visits children first.
# expect: ['fc', 'act', 'out'] 3 True False ReLU()
# expect: ['parts.fc.weight', 'parts.fc.bias', 'parts.out.weight', 'parts.out.bias']
# expect: True ['Linear', 'ReLU', 'Linear', 'ModuleDict', 'Net'] 0.0
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.parts = nn.ModuleDict(dict(fc=nn.Linear(2, 2), act=nn.ReLU()))
        self.parts['out'] = nn.Linear(2, 1)
net = Net()
print(list(net.parts.keys()), len(net.parts), 'fc' in net.parts, 'x' in net.parts, net.parts['act'])
print([n for n, p in net.named_parameters()])
seen = []
def visit(m):
    seen.append(type(m).__name__)
    if isinstance(m, nn.Linear):
        torch.nn.init.zeros_(m.bias)
print(net.apply(visit) is net, seen, net.parts.out.bias.sum().item())
