# A module's forward with an optional mask (None or a tensor), a keyword-only float, **extra keyword arguments
# and a dict result; each call pattern compiles once and a repeat reuses it.
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3, bias=False)
        with torch.no_grad():
            self.proj.weight.copy_(torch.arange(9, dtype=torch.float32).reshape(3, 3) / 10)

    def forward(self, x, mask=None, *, scale=1.0, **extra):
        s = self.proj(x) * scale
        if mask is not None:
            s = s.masked_fill(~mask, -1.0)
        if "bias" in extra:
            s = s + extra["bias"]
        return {"scores": s, "max": s.amax(-1), "n_extra": len(extra)}


def main(device):
    model = Scorer().to(device)
    cmodel = torch.compile(model, backend="eager")
    x = torch.linspace(-1, 1, 6, device=device).reshape(2, 3)
    mask = torch.tensor([[True, False, True], [False, True, True]], device=device)
    out = []
    with torch.no_grad():
        for kwargs in [{}, {"mask": mask}, {"mask": mask, "scale": 2.0}, {"bias": torch.ones(3, device=device)}, {}]:
            r = cmodel(x, **kwargs)
            out.extend([r["scores"], r["max"], torch.tensor(float(r["n_extra"]))])
    return out
