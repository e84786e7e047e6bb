# A small CNN (Conv2d, BatchNorm2d, ReLU, AvgPool2d, Linear, Softmax) compiled with the inductor backend: one graph,
# the same outputs, gradients and running statistics as eager, step for step.
# expect: True True True
# expect: True True True
# expect unique_graphs: 1
# expect graph_breaks: 0
import copy
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.AvgPool2d(2)
        self.fc = nn.Linear(16, 3)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        h = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.softmax(self.fc(h.flatten(1)))


torch.manual_seed(0)
eager = Net()
compiled_net = copy.deepcopy(eager)
compiled = torch.compile(compiled_net)
for step in range(2):
    x = torch.randn(2, 2, 4, 4)
    ref = eager(x)
    out = compiled(x)
    ref.square().sum().backward()
    out.square().sum().backward()
    print(torch.allclose(out, ref, atol=1e-5), torch.allclose(compiled_net.conv.weight.grad, eager.conv.weight.grad, atol=1e-5),
          torch.allclose(compiled_net.bn.running_var, eager.bn.running_var, atol=1e-6))
