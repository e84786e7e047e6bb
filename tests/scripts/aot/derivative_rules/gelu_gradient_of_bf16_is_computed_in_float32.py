# GELU's derivative of bfloat16 operands is computed in float32 and rounded once, as PyTorch's gelu_backward kernel
# computes in its opmath type: eagerly the bf16 gradient is the float32 gradient of the same values, rounded once;
# compiled, AOT Autograd records the derivative with its casts (`to(torch.float32)` and back), so the backward stays
# generated code, and its gradients are eager's within one bfloat16 step (1e-4 near zero, where GELU's derivative
# cancels; its float32 arithmetic is fused into one kernel with its own tanh/erf, so a value on a rounding
# boundary may round the other way).
# expect: tanh True True
# expect: none True True
# expect graph: to(torch.float32)
# expect no code: cwb_inductor_eager_fallback
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x0 = torch.randn(64, 48) * 3
g0 = torch.randn(64, 48)


def gelu_tanh(x):
    return F.gelu(x * 1.0, approximate="tanh")


def gelu_erf(x):
    return F.gelu(x * 1.0)


def gradient(fn, dtype):
    x = x0.bfloat16().to(dtype).requires_grad_()
    fn(x).backward(g0.bfloat16().to(dtype))
    return x.grad


for name, fn in (("tanh", gelu_tanh), ("none", gelu_erf)):
    eager = gradient(fn, torch.bfloat16)
    in_float32 = gradient(fn, torch.float32).bfloat16()
    compiled = gradient(torch.compile(fn), torch.bfloat16)
    print(name, torch.equal(eager, in_float32), torch.allclose(compiled.float(), eager.float(), rtol=2**-7, atol=1e-4))
