# Plain attributes of a compiled nn.Module (a counter, the last output) are stored on the real module, under
# inductor with parameters that require grad (AOT Autograd must not take `self.calls += 1`, an operator.iadd on a
# SymInt after the counter became dynamic, for an in-place update of an input).
# expect: 3 True True
# expect graph_breaks: 0
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.calls = 0
        self.last = None

    def forward(self, x):
        self.calls += 1
        y = self.fc(x)
        self.last = y
        return y * 2

def main():
    torch.manual_seed(0)
    net = Net()
    model = torch.compile(net)
    x = torch.ones(1, 2)
    a = model(x)
    b = model(x)
    b = model(x)
    return [net.calls, torch.equal(net.last * 2, b), torch.equal(a, b)]


def show(v):
    return v.tolist() if isinstance(v, torch.Tensor) else v


print(*[show(v) for v in main()])
