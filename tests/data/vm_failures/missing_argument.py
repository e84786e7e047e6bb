# Calling a compiled function with too few arguments: CPython's TypeError wording.
import torch


@torch.compile
def scale(x, factor):
    return x * factor


def main(device):
    return [scale(torch.ones(3))]


main("cpu")
