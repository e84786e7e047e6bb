# TORCH_LOGS=fusion,schedule: the scheduler's decisions in Inductor's fusion_log words (one round: cwb's scheduler
# decides in one pass) and each generated kernel's nodes in the schedule log. They come with the scheduler's work, so
# the FX graph cache is off here (a cached schedule is not made again).
# torch_logs: fusion,schedule
# env: TORCHINDUCTOR_FX_GRAPH_CACHE=0
# expect: True
# expect log: [0/0] [__fusion] ===== attempting fusion (1/10): 
# expect log: [0/0] [__fusion] fusing buf1 with
# expect log: [0/0] [__fusion] completed fusion round (1/10): fused
# expect log: [0/0] [__fusion] ===== fusion complete (1 iterations) =====
# expect log: [0/0] [__schedule] Schedule:
# expect log: [0/0] [__schedule]  [SchedulerNode(name='buf
# expect no log: [__output_code]
# expect no log: starts a new kernel
import torch


def f(x):
    return (torch.sin(x) * 2).sum(0) + 1


x = torch.arange(12.0).reshape(3, 4)
print(torch.allclose(torch.compile(f)(x), f(x)))
