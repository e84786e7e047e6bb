# Row and column reductions of one cuda tensor (the bench's B6: x.sum(dim=1), x.mean(dim=0)) compute what eager
# computes, in one kernel that reads x once: each piece of the grid keeps the partials of the columns it reads
# (in registers when a row is whole aligned vectors, [256, 512]; in its workspace row otherwise, 517 columns) and a
# finish entry combines the pieces in order. The first call runs the interpreter tier (a block a piece of rows, its
# threads over the columns, then a thread per column); past its launches the optimised kernel gives the same bits on
# every call.
# requires: cuda
# expect: True True cuda:0
# expect: True True cuda:0
# expect: True True cuda:0
# expect: True True cuda:0
# expect unique_graphs: 4
# expect code: reduction over the other dims of the same input, in the same pass (one read for both)
# expect no code: one pass over both is generated only
# expect no code: runs on the eager runtime
import torch


def f(x):
    return x.sum(dim=1), x.mean(dim=0), x.amax(dim=0, keepdim=True) * 2


torch.manual_seed(0)
compiled = torch.compile(f, dynamic=False)
for rows, columns in ((300, 517), (256, 512), (2049, 1024), (4099, 2048)):
    x = torch.randn(rows, columns, device='cuda')
    got, want = compiled(x), f(x)
    for _ in range(9):  # past the first tier's launches (CWB_CUDA_QUICK_LAUNCHES): the optimised kernel
        compiled(x)
    once, again = compiled(x), compiled(x)
    # float sums in another order than eager's
    close = max((g - w).abs().max().item() for g, w in zip(got + once, want + want)) < 1e-3
    print(close, all(torch.equal(a, b) for a, b in zip(once, again)), got[0].device)
