# A function of a million additions under torch.compile: within the memory cap its capture runs out of memory, which
# must end the program with Python's MemoryError in seconds, never a hang or an out-of-memory kill.
import torch


@torch.compile
def f(x):
    for i in range(1000):
        for j in range(1000):
            x = x + 1
    return x


print(f(torch.zeros(4)))
