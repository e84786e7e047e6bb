# On the CPU, where oneDNN takes a linear's product, its only reader's relu, exact GELU or tanh-GELU is the matmul's
# eltwise post-op (oneDNN's eltwise_relu / eltwise_gelu_erf / eltwise_gelu_tanh), with or without a bias: no
# pointwise kernel. float32 equals eager within the GELU's own rounding (the two GELU forms differ by up to 5e-4, a
# missing bias by the bias); bfloat16 rounds once, after the activation, where eager rounds the product first: within
# an ulp of eager's result plus one of its linear's, and within one rounding of a float32 reference.
# expect: True True True
# expect code: bias and gelu fused into the oneDNN matmul
# expect code: bias and gelu(approximate='tanh') fused into the oneDNN matmul
# expect code: bias and relu fused into the oneDNN matmul
# expect code: extern_kernels.mm(
# expect no code: cwb_poi
import torch
import torch.nn.functional as F


def lin_gelu(x, w, b, w2):
    return F.gelu(F.linear(x, w, b))


def lin_gelu_tanh(x, w, b, w2):
    return F.gelu(F.linear(x, w, b), approximate='tanh')


def lin_relu(x, w, b, w2):
    return torch.relu(F.linear(x, w, b))


def lin_nobias_gelu(x, w, b, w2):
    return F.gelu(F.linear(x, w))


def mlp(x, w, b, w2):
    # B4's graph: the first linear's GELU fused, the second linear without a bias a plain product
    return F.linear(F.gelu(F.linear(x, w, b)), w2)


def pre_activation(f, x, w, b):
    # the eager linear's result the activation reads (for the bfloat16 tolerance)
    return F.linear(x, w) if f is lin_nobias_gelu else F.linear(x, w, b)


torch.manual_seed(0)
same32 = True
same16 = True
one_rounding = True
with torch.no_grad():
    for shape in [(256, 128), (2, 128, 128)]:
        x32 = torch.randn(shape)
        w32 = torch.randn(256, 128) / 11.3
        b32 = torch.randn(256)
        w2_32 = torch.randn(64, 256) / 16
        for f in [lin_gelu, lin_gelu_tanh, lin_relu, lin_nobias_gelu, mlp]:
            got = torch.compile(f, dynamic=False)(x32, w32, b32, w2_32)
            want = f(x32, w32, b32, w2_32)
            same32 = same32 and (got - want).abs().max().item() < 2e-5
            x, w, b, w2 = x32.bfloat16(), w32.bfloat16(), b32.bfloat16(), w2_32.bfloat16()
            got = torch.compile(f, dynamic=False)(x, w, b, w2).float()
            want = f(x, w, b, w2).float()
            if f is not mlp:
                pre = pre_activation(f, x, w, b).float().abs()
                same16 = same16 and bool(((got - want).abs() <= (want.abs() + pre) / 128 + 1e-5).all())
                exact = f(x.float(), w.float(), b.float(), None)
                one_rounding = one_rounding and bool(((got - exact).abs() <= exact.abs() / 256 + 1e-5).all())
            else:
                same16 = same16 and bool(((got - want).abs() <= want.abs() / 32 + 0.02).all())
print(same32, same16, one_rounding)
