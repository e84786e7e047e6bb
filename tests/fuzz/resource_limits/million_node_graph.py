# A function of a million additions under torch.compile: within the memory cap it must end with the right result
# (the capture gives up on the frame when memory runs out and it runs eagerly), never hang or be killed.
import torch


@torch.compile
def f(x):
    for i in range(1000):
        for j in range(1000):
            x = x + 1
    return x


print(f(torch.zeros(4)))
