# torch.cat along the last dim compiles to one kernel whose threads store 16-byte vectors; where the pieces' widths
# are whole vectors (the GPT-2 step's q/k/v gradients: three [8, 16, 768] bfloat16 views of one [3, 8, 16, 12, 64]
# buffer; float32 pieces of 4, 8 and 12 columns) a vector's piece is decided once and read as one 16-byte load, and
# where a piece ends inside a vector (bfloat16 pieces of 4 and 12) each element picks its own. Copies, so compiled
# equals eager bit for bit, on the first call (the interpreter tier) and past it (the optimised kernel).
# requires: cuda
# expect: True True True
# expect unique_graphs: 3
# expect no code: runs on the eager runtime
import torch


def qkv(g):
    return torch.cat([g[0].view(8, 16, 768), g[1].view(8, 16, 768), g[2].view(8, 16, 768)], dim=2)


def split_vectors(a, b):
    return torch.cat([a, b], dim=1) * 2


def float_pieces(a, b, c):
    return torch.cat([a, b, c], dim=-1) + 1


torch.manual_seed(0)
g = torch.randn(3, 8, 16, 12, 64, device="cuda").to(torch.bfloat16)
halves = (torch.randn(5, 4, device="cuda").to(torch.bfloat16), torch.randn(5, 12, device="cuda").to(torch.bfloat16))
floats = (torch.randn(7, 4, device="cuda"), torch.randn(7, 8, device="cuda"), torch.randn(7, 12, device="cuda"))
results = []
for f, args in ((qkv, (g,)), (split_vectors, halves), (float_pieces, floats)):
    compiled = torch.compile(f, dynamic=False)
    first = compiled(*args)
    for _ in range(9):  # past the first tier's launches (CWB_CUDA_QUICK_LAUNCHES): the optimised kernel
        compiled(*args)
    want = f(*args)
    results.append(torch.equal(first, want) and torch.equal(compiled(*args), want))
print(results[0], results[1], results[2])
