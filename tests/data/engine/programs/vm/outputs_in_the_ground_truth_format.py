# main(device) returns tensors of every summary form `cwb run --outputs` writes: a transposed float matrix, nan and
# -inf values, a tensor too long to list, booleans (read by tests/unit/engine/vm/outputs_test.cpp).
import torch
def main(device):
    a = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3).t()
    b = torch.tensor([1.0, float('nan'), float('-inf')])
    c = torch.arange(5000)
    return [a, b, c, torch.tensor([True, False])]
