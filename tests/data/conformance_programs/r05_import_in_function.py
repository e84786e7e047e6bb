# `import` statements inside a compiled function: modules and names imported there are traced through.
import torch


def imports(x, y):
    import math
    import torch.nn.functional as F
    from torch import sub

    return sub(torch.add(x, y), y) * math.pi + F.relu(x - 2)


opt_imports = torch.compile(imports, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    y = torch.ones(4, device=device)
    return [opt_imports(x, y), opt_imports(x + 1, y)]
