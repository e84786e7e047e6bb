# With dynamic=False every new k is a guard failure and a recompile, until config.recompile_limit (8): the
# ninth would exceed it, so f runs eager from there with Dynamo's warning.
# expect: 132.0
# expect compiles: 0/0 f, 0/1 f, 0/2 f, 0/3 f, 0/4 f, 0/5 f, 0/6 f, 0/7 f
# expect log: [0/8] torch._dynamo hit config.recompile_limit (8)
# expect log: [0/8]    function: 'f' (capture/guards/dynamic_false_recompiles_until_the_limit.py:11)
# expect log: [0/8]    last reason: 0/7: k == 7  
import torch


@torch.compile(dynamic=False)
def f(x, k):
    return x * k


x = torch.ones(2)
total = 0.0
for k in range(12):
    total += f(x, k).sum().item()
print(total)
