# A layer_norm of values that require grad is traced as PyTorch's native_layer_norm: the forward returns each row's
# mean and rstd beside the output, the partition saves them (float32 [rows, 1]; recomputing them is banned, as
# Inductor bans recomputing var_mean), and the backward normalises from them: no mean or variance is recomputed,
# and the input's gradient (two row sums), the weight's and the bias's (column sums over the rows) come out of one
# kernel. Gradients equal eager's in float32 and float64, for 16-bit inputs (computed in float32 and rounded once,
# eager rounds each step: within a few bfloat16 steps), without weight or bias, and over two normalized dims.
# expect: float32 True
# expect: float64 True
# expect: bfloat16 True
# expect: bfloat16 inputs, float32 parameters True
# expect: no weight or bias True
# expect: two normalized dims True
# expect: statistics torch.Size([4, 6, 1]) torch.float32 True True
# expect graph: = torch.native_layer_norm(primals_1
# expect graph: = native_layer_norm[2]
# expect no graph: .mean(
# Every forward is one kernel, and so is each backward of a weighted layer_norm (four dtypes): 10 graphs.
# expect code_count 10: # cwb inductor: 1 kernels, 0 extern calls
# expect no code: cwb_inductor_eager_fallback
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x0 = torch.randn(8, 16, 64) * 2 + 0.5
w0 = torch.randn(64)
b0 = torch.randn(64)
g0 = torch.randn(8, 16, 64)


def normalised(x, w, b):
    return F.layer_norm(x, (64,), w, b, 1e-5)


def plain(x, w, b):
    return F.layer_norm(x, (64,)) * w + b


def two_dims(x, w, b):
    return F.layer_norm(x, (16, 64), w.expand(16, 64), b.expand(16, 64))


def gradients(fn, dtype, parameters):
    x = x0.clone().to(dtype).requires_grad_()
    w = w0.clone().to(parameters).requires_grad_()
    b = b0.clone().to(parameters).requires_grad_()
    y = fn(x, w, b)
    y.backward(g0.clone().to(dtype))
    return [y, x.grad, w.grad, b.grad]


def same(fn, dtype, parameters, tolerance):
    eager = gradients(fn, dtype, parameters)
    compiled = gradients(torch.compile(fn), dtype, parameters)
    for e, c in zip(eager, compiled):
        if not torch.allclose(c.double(), e.double(), rtol=tolerance, atol=tolerance * e.double().abs().max().item()):
            return (c.double() - e.double()).abs().max().item()
    return True


print("float32", same(normalised, torch.float32, torch.float32, 1e-5))
print("float64", same(normalised, torch.float64, torch.float64, 1e-12))
print("bfloat16", same(normalised, torch.bfloat16, torch.bfloat16, 2e-2))
print("bfloat16 inputs, float32 parameters", same(normalised, torch.bfloat16, torch.float32, 2e-2))
print("no weight or bias", same(plain, torch.float32, torch.float32, 1e-5))
print("two normalized dims", same(two_dims, torch.float32, torch.float32, 1e-5))
out, mean, rstd = torch.native_layer_norm(x0, [64], w0, b0, 1e-5)
x = x0[:4, :6]
out, mean, rstd = torch.native_layer_norm(x, [64], None, None, 1e-5)
print("statistics", mean.shape, rstd.dtype, torch.allclose(mean, x.mean(-1, keepdim=True), atol=1e-6),
      torch.allclose(rstd, (x.var(-1, unbiased=False, keepdim=True) + 1e-5).rsqrt(), rtol=1e-5))
