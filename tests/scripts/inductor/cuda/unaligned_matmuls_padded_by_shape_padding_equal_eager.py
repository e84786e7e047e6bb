# options={"force_shape_pad": True}: unaligned mm, bmm, addmm and matmul on CUDA read zero-padded operands and
# return the slice, as Inductor's pad_mm does; the result equals the unpadded product, and the output code says
# what was padded.
# requires: cuda
# expect: True True True True
# expect code: shape_padding: mm
# expect code: padded to
import torch


def products(a, b, c, bias):
    return a @ b, torch.bmm(c, c.transpose(1, 2)), torch.addmm(bias, a, b), torch.matmul(a, b).relu()


a = torch.randn(509, 1023, device="cuda")
b = torch.randn(1023, 257, device="cuda")
c = torch.randn(3, 129, 65, device="cuda")
bias = torch.randn(257, device="cuda")
eager = products(a, b, c, bias)
compiled = torch.compile(products, options={"force_shape_pad": True})(a, b, c, bias)
print(*[torch.allclose(e, g, rtol=1e-3, atol=1e-3) for e, g in zip(eager, compiled)])
