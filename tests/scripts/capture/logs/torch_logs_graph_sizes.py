# TORCH_LOGS=graph_sizes prints the size of each tensor node of a captured graph under Dynamo's heading; after an
# automatic-dynamic recompile a symbolic size is followed by the concrete sizes of that call.
# torch_logs: graph_sizes
# expect: [6.0, 6.0, 6.0, 6.0, 6.0]
# expect log: [0/0] [__graph_sizes] TRACED GRAPH TENSOR SIZES
# expect log: [0/0] [__graph_sizes] ===== __compiled_fn_1 =====
# expect log: [0/0] [__graph_sizes] l_x_: (4, 3)
# expect log: [0/0] [__graph_sizes] mul: (4, 3)
# expect log: [0/0] [__graph_sizes] sum_1: (4,)
# expect log: [0/1] [__graph_sizes] l_x_ (concrete): (5, 3)
# expect log: [0/1] [__graph_sizes] sum_1 (concrete): (5,)
# expect no log: [__graph_code]
# expect recompiles: 1
import torch


@torch.compile(backend="eager")
def f(x):
    return (x * 2).sum(1)


f(torch.ones(4, 3))
print(f(torch.ones(5, 3)).tolist())
