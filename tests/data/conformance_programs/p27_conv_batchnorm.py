# A conv net with BatchNorm in training and eval mode: running statistics updated by compiled training calls, the
# switch to eval recompiling, pooling, flatten and a linear head (default values, deterministic weights).
import torch
import torch.nn as nn


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.avg = nn.AdaptiveAvgPool2d((1, 1))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4, 3))

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        return self.head(self.avg(self.pool(x)))


def init_params(model):
    k = 0
    for p in model.parameters():
        vals = torch.sin(torch.arange(p.numel(), dtype=torch.float32) * 0.7 + k) * 0.3
        with torch.no_grad():
            p.copy_(vals.reshape(p.shape))
        k += 1


def main(device):
    model = ConvNet()
    init_params(model)
    model = model.to(device)
    cmodel = torch.compile(model, backend="eager")
    x = torch.sin(torch.arange(64, dtype=torch.float32, device=device).reshape(2, 2, 4, 4) * 0.37)
    out = []
    with torch.no_grad():
        out.append(cmodel(x))
        out.append(cmodel(x * 2))
        out.extend([model.bn.running_mean.clone(), model.bn.running_var.clone(),
                    model.bn.num_batches_tracked.clone()])
        model.eval()
        out.append(cmodel(x))
    return out
