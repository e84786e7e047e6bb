# nn.Module registers parameters and submodules in PyTorch's order, switches train/eval, and prints like
# PyTorch.
# expect: ['scale', 'fc.weight', 'fc.bias'] 3
# expect: True False False True
# expect: torch.Size([2, 3]) True True
# expect: Net(
# expect:   (fc): Linear(in_features=4, out_features=3, bias=True)
# expect:   (seq): Sequential(
# expect:     (0): GELU(approximate='none')
# expect:     (1): Dropout(p=0.1, inplace=False)
# expect:   )
# expect: )
import torch
import torch.nn as nn
from torch import nn as nn2
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.seq = nn.Sequential(nn.GELU(), nn.Dropout(0.1))
        self.scale = nn.Parameter(torch.ones(3))
    def forward(self, x):
        return self.seq(self.fc(x)) * self.scale
net = Net()
print([n for n, p in net.named_parameters()], len(list(net.parameters())))
print(net.training, net.eval().training, net.seq[1].training, nn2 is nn)
print(net(torch.ones(2, 4)).shape, isinstance(net.scale, nn.Parameter), isinstance(net, nn.Module))
print(net)
