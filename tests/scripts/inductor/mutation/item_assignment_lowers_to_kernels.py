# Item assignment (`x[index] = value`, one operator.setitem node) is lowered to kernels, not run eagerly: slices,
# ints, None and Ellipsis as a where over the written region (scalar and tensor values broadcast as setitem does),
# a boolean mask as where(mask, value, x) fused into the softmax after it, integer tensor indices as an index_put on
# a copy; a write into a graph input is written back. Training graphs take scores[mask] = -inf and one value
# written through ints and slices as masked_fill.
# Compiled equals eager under the inductor and aot_eager.
# expect: inductor
# expect: intermediate [[0.0, 0.0], [6.0, 1.0], [6.0, 8.0]] True
# expect: input 245.0 [[0.0, 100.0, 100.0, 1.0], [4.0, 5.0, 6.0, 1.0], [8.0, 9.0, 10.0, 1.0]] True
# expect: mask [[0.0, 0.9442, 0.0558, 0.0], [0.0513, 0.032, 0.0, 0.9167]] True
# expect: ints [[4, 4], [9, 9], [2, 2]] True
# expect: index_put [[0.0, 1.0], [2.0, 3.0], [0.0, 1.0]] True
# expect: training True True True
# expect: aot_eager
# expect: intermediate [[0.0, 0.0], [6.0, 1.0], [6.0, 8.0]] True
# expect: input 245.0 [[0.0, 100.0, 100.0, 1.0], [4.0, 5.0, 6.0, 1.0], [8.0, 9.0, 10.0, 1.0]] True
# expect: mask [[0.0, 0.9442, 0.0558, 0.0], [0.0513, 0.032, 0.0, 0.9167]] True
# expect: ints [[4, 4], [9, 9], [2, 2]] True
# expect: index_put [[0.0, 1.0], [2.0, 3.0], [0.0, 1.0]] True
# expect: training True True True
# expect graph_breaks: 0
# expect no code: runs on the eager runtime
# expect code_files: cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_inductor_output_code with kernels, cwb_aot_eager, cwb_aot_eager
import torch


def intermediate(x):
    y = x * 2
    y[:, 0] = 5.0
    y[1:, 1] = x[:-1, 0] * 3
    y[::2, 1] = torch.ones(2) * 7
    y[0] = -1
    return y + 1


def into_input(x):
    x[0, 1:] = 100.0
    x[..., None, -1] = torch.ones(1)
    return x.sum()


def masked_softmax(x, m):
    s = x * 1.5
    s[m] = float("-inf")
    return torch.softmax(s, dim=-1)


def ints(x):
    y = x.clone()
    y[2] = 2.7
    y[None, 0, None] = torch.full((1, 1, 1), 4)
    y[1, ...] = True * 9
    return y


def tensor_index(x, i):
    y = x + 0
    y[i] = torch.arange(2, dtype=torch.float32)
    return y


def region(x, v):
    y = x.sin()
    y[:, 1] = 3.0
    y[0, ::2] = v
    return (y * y).sum()


def attention(q, m):
    s = q @ q.t()
    s[m] = float("-inf")
    return torch.softmax(s, dim=-1).sum(0)


for backend in ("inductor", "aot_eager"):
    print(backend)
    compiled = lambda f: torch.compile(f, backend=backend)
    x = torch.arange(6, dtype=torch.float32).reshape(3, 2)
    y = compiled(intermediate)(x)
    print("intermediate", y.tolist(), torch.equal(y, intermediate(x)))
    a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    b = a.clone()
    total = compiled(into_input)(b)
    print("input", total.item(), b.tolist(), torch.equal(total, into_input(a)) and torch.equal(a, b))
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    m = torch.tensor([[True, False, False, True], [False, False, True, False]])
    p = compiled(masked_softmax)(x, m)
    print("mask", [[round(v, 4) for v in row] for row in p.tolist()], torch.allclose(p, masked_softmax(x, m)))
    x = torch.arange(6).reshape(3, 2)
    y = compiled(ints)(x)
    print("ints", y.tolist(), torch.equal(y, ints(x)))
    x = torch.arange(6, dtype=torch.float32).reshape(3, 2)
    i = torch.tensor([0, 2])
    y = compiled(tensor_index)(x, i)
    print("index_put", y.tolist(), torch.equal(y, tensor_index(x, i)))
    q = torch.randn(3, 3, requires_grad=True)
    m = torch.tensor([[False, True, True], [False, False, True], [False, False, False]])
    weights = torch.arange(3.0)
    (attention(q, m) * weights).sum().backward()
    eager_grad, q.grad = q.grad, None
    out = compiled(attention)(q, m)
    (out * weights).sum().backward()
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    v = torch.tensor(4.0, requires_grad=True)
    region(x, v).backward()
    eager_grads = (x.grad, v.grad)
    x.grad = v.grad = None
    compiled(region)(x, v).backward()
    print("training", torch.allclose(out, attention(q, m)), torch.allclose(q.grad, eager_grad),
          torch.allclose(x.grad, eager_grads[0]) and torch.allclose(v.grad, eager_grads[1]))
