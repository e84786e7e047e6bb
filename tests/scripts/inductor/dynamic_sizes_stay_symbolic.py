# torch.compile(dynamic=True): one compile serves both input sizes, its kernels index with the size symbol s0, and
# both results equal eager's.
# expect: True True
# expect code_files: cwb_inductor_output_code with kernels
# expect code: s0
import torch


@torch.compile(dynamic=True)
def f(x):
    return (x * x).sum(dim=-1) / x.shape[1]


a = torch.randn(3, 7)
b = torch.randn(5, 11)
print(torch.allclose(f(a), (a * a).sum(dim=-1) / 7), torch.allclose(f(b), (b * b).sum(dim=-1) / 11))
