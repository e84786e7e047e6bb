# nn.ReLU(inplace=True), nn.SiLU(inplace=True) and nn.Dropout(inplace=True) write their input, as PyTorch's do
# (torchvision's ResNets build every ReLU this way): eagerly, and compiled, where the write reaches the input's
# other uses and the caller's tensor.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = nn.ReLU(inplace=True)
        self.silu = nn.SiLU(inplace=True)
        self.drop = nn.Dropout(p=0.5, inplace=True)

    def forward(self, x, t):
        y = x * 2
        z = self.relu(y)
        self.silu(t)
        return y + z


block = Block().eval()
print(block.relu, block.silu, nn.ReLU())
# expect: ReLU(inplace=True) SiLU(inplace=True) ReLU()
x = torch.tensor([-1.0, 2.0, -3.0, 4.0])
t_eager = torch.tensor([-1.0, 0.0, 1.0])
t_compiled = torch.tensor([-1.0, 0.0, 1.0])
eager = block(x, t_eager)
compiled = torch.compile(block)(x, t_compiled)
print(eager.tolist())
# expect: [0.0, 8.0, 0.0, 16.0]
print(torch.equal(eager, compiled), torch.allclose(t_eager, t_compiled), round(t_eager[0].item(), 4))
# expect: True True -0.2689
d = torch.tensor([1.0, 2.0])
block.drop(d)
print(d.tolist())
# expect: [1.0, 2.0]
