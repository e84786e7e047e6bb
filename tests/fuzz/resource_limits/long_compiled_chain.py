# A compiled function of 10,000 chained additions: lowers, schedules and compiles in flat memory, in seconds (each
# pointwise loader copied the chain below it: 1,000 additions took 3 GB; then the scheduler re-planned a kernel's
# every member for each buffer joining it: 10,000 additions took 32 s).
import torch


@torch.compile
def f(x):
    for i in range(10000):
        x = x + 1
    return x


print(f(torch.zeros(4)))
