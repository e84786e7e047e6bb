# TORCH_LOGS=ir_pre_fusion,+ir_post_fusion: the inductor's buffers before fusion and its kernels after it, each
# line under the compile id and the artifact's name as PyTorch prints them, and no output code (not asked for).
# torch_logs: ir_pre_fusion,+ir_post_fusion
# expect: True
# expect log: [0/0] [__ir_pre_fusion] arg0_1: Input float32[8] input 0 (l_x_)
# expect log: [0/0] [__ir_pre_fusion] buf0: Pointwise float32[8] reads arg0_1 (sin, mul, add)
# expect log: [0/0] [__ir_post_fusion] # fused: sin, mul, add
# expect log: [0/0] [__ir_post_fusion] kernel cwb_poi_fused_add_mul_sin_0(
# expect log: [0/0] [__ir_post_fusion]     buf0[x0] = add(mul(sin(arg0_1[x0]), 2), 1)
# expect no log: [__output_code]
import torch


def f(x):
    return torch.sin(x) * 2 + 1


x = torch.arange(8.0)
print(torch.equal(torch.compile(f)(x), f(x)))
