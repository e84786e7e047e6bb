"""Two ranks (gloo, world size 2): each initialises torch.distributed before
compiling, so its TORCH_TRACE file is named ..._rank_<r>_... and its records
carry "rank". Rank 1 also sees a second shape (one recompile on rank 1 only)."""
import os

import torch
import torch.distributed as dist


@torch.compile
def step(x):
    return torch.tanh(x) * 0.5 + x.mean()


def main(device):
    dist.init_process_group("gloo", init_method="env://")
    rank = dist.get_rank()
    x = torch.linspace(-1.0, 1.0, 16, device=device) + rank
    y = step(x)
    if rank == 1:
        step(torch.linspace(-1.0, 1.0, 24, device=device))
    dist.all_reduce(y)
    dist.destroy_process_group()
    return {"rank": rank, "world_size": int(os.environ["WORLD_SIZE"])}
