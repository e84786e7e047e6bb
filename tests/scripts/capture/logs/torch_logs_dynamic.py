# TORCH_LOGS=dynamic: ShapeEnv's INFO lines: create_env per compile, create_symbol for each dynamic size with the user
# line that first read it, the guard a comparison of a size adds (sympy's Eq/Ne/<=), produce_guards.
# torch_logs: dynamic
# expect: [4.0, 4.0, 4.0, 4.0]
# expect log: [0/0] create_env
# expect log: [0/0] create_symbol s0 = 4 for L['x'].size()[0] [2, int_oo] at capture/logs/torch_logs_dynamic.py:15 in f, for more info run with TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL="s0" or to suppress this message run with TORCHDYNAMO_EXTENDED_ADVICE="0"
# expect log: [0/0] eval Eq(s0, 4) [guard added] at capture/logs/torch_logs_dynamic.py:15 in f (_dynamo/variables/tensor.py:1951 in evaluate_expr), for more info run with TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED="Eq(s0, 4)"
# expect log: [0/0] produce_guards
# expect no log: [__
import torch


@torch.compile(backend="eager", dynamic=True)
def f(x):
    if x.shape[0] == 4:
        return x * 4
    return x


print(f(torch.ones(4)).tolist())
