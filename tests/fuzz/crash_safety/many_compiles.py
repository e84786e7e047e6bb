# Eight compiles of one function (a new static shape each call), a line printed after each: the crash-safety
# test kills `cwb run --trace` at random points and checks that every call printed as done is in the trace.
import torch


@torch.compile(dynamic=False)
def step(x):
    return torch.relu(x) * 2 + x.sum()


def main(device):
    outs = []
    for i in range(1, 9):
        outs.append(step(torch.ones(i, device=device)))
        print("compiled call", i, "done")
    return outs
