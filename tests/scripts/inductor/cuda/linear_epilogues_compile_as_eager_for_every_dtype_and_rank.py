# F.linear on a GPU takes a cuBLASLt epilogue from its sole reader (bias, relu, float32 tanh-GELU); exact GELU stays
# a kernel of its own. Compiled equals eager for each epilogue, float32 and bfloat16, 2-d and 3-d inputs; bfloat16
# bit for bit: eager linear is the same cuBLASLt call, the bias added before the one rounding (it used to round the
# product, then the bias add: a CUDA autocast training step drifted from eager), and a bfloat16 tanh-GELU keeps its
# kernel, as eager rounds the linear's result before it.
# requires: cuda
# expect: True True
# expect code: extern_kernels.addmm(
# expect code: bias and relu fused into the cuBLASLt matmul epilogue
# expect code: bias and gelu(approximate='tanh') fused into the cuBLASLt matmul epilogue
# expect code: relu fused into the cuBLASLt matmul epilogue
# expect code: extern_kernels.mm(
# expect code: cwb_poi_fused_gelu
import torch
import torch.nn.functional as F


def lin(x, w, b):
    return F.linear(x, w, b)


def lin_relu(x, w, b):
    return torch.relu(F.linear(x, w, b))


def lin_gelu_tanh(x, w, b):
    return F.gelu(F.linear(x, w, b), approximate='tanh')


def lin_gelu(x, w, b):
    return F.gelu(F.linear(x, w, b))


def lin_nobias_relu(x, w, b):
    return F.relu(F.linear(x, w))


worst32 = 0.0
worst16 = 0.0
with torch.no_grad():
    for dtype in [torch.float32, torch.bfloat16]:
        for shape in [(6, 32), (2, 5, 32)]:
            n = 1
            for s in shape:
                n = n * s
            x = torch.sin(torch.arange(n, dtype=torch.float32, device='cuda').reshape(shape) * 0.3).to(dtype)
            w = (torch.cos(torch.arange(24 * 32, dtype=torch.float32, device='cuda').reshape(24, 32) * 0.11) * 0.3).to(dtype)
            b = torch.sin(torch.arange(24, dtype=torch.float32, device='cuda') * 0.7).to(dtype)
            for f in [lin, lin_relu, lin_gelu_tanh, lin_gelu, lin_nobias_relu]:
                got = torch.compile(f)(x, w, b)
                want = f(x, w, b)
                err = (got.float() - want.float()).abs().max().item()
                if dtype == torch.float32:
                    worst32 = max(worst32, err)
                else:
                    worst16 = max(worst16, err)
print(worst32 < 1e-4, worst16 == 0.0)
