# After an automatic-dynamic recompile (the sequence length changed), nn.Embedding, nn.Linear and nn.LayerNorm
# give outputs of this call's length.
import torch
import torch.nn as nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(16, 8)
        self.proj = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, idx):
        h = self.embed(idx)
        h = self.proj(h)
        return self.norm(h)


def main(device):
    model = Tiny().to(device)
    # deterministic parameters (PyTorch's random initialisation is not what this program checks)
    with torch.no_grad():
        for k, p in enumerate(model.parameters()):
            n = p.numel()
            p.copy_(torch.sin(torch.arange(n, dtype=torch.float32, device=device) * (0.3 + 0.1 * k)).reshape(p.shape))
    opt_model = torch.compile(model)
    out = []
    for t in [4, 6, 9, 5]:
        idx = (torch.arange(2 * t, device=device) % 16).reshape(2, t)
        out.append(opt_model(idx))
    return out
