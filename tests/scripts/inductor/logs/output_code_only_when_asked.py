# TORCH_LOGS=output_code logs the generated code under the compile id, and nothing of the inductor's IR.
# torch_logs: output_code
# expect: True
# expect log: [0/0] [__output_code] Output code:
# expect no log: [__ir_pre_fusion]
import torch


def f(x):
    return torch.sin(x) * 2 + 1


x = torch.arange(8.0)
print(torch.equal(torch.compile(f)(x), f(x)))
