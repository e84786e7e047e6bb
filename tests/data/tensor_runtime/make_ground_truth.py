"""Records real PyTorch's results for the tensor runtime's conformance test.

Run with real torch (the GPU machine has 2.11):  python3 make_ground_truth.py > torch_ground_truth.json
Each case is an op name as the registry knows it ("torch.add", "Tensor.sum", "F.softmax", "Tensor.__getitem__"),
its arguments (tensors serialised with exact values) and what torch returned or raised.
"""
import json
import math
import sys

import torch
import torch.nn.functional as F

CASES = []


def enc(v):
    if isinstance(v, torch.Tensor):
        flat = v.detach().reshape(-1).tolist() if v.dim() > 0 else [v.item()]
        d = {"tensor": [num(x) for x in flat], "shape": list(v.shape), "dtype": str(v.dtype)[6:]}
        if v.dim() >= 2 and not v.is_contiguous():
            d["stride"] = list(v.stride())
        return d
    if isinstance(v, torch.dtype):
        return {"dtype": str(v)[6:]}
    if isinstance(v, torch.Size):
        return {"size": list(v)}
    if isinstance(v, slice):
        return {"slice": [v.start, v.stop, v.step]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, tuple):
        d = {"tuple": [enc(x) for x in v]}
        if hasattr(v, "_fields"):
            d["names"] = list(v._fields)
        return d
    if isinstance(v, list):
        return {"list": [enc(x) for x in v]}
    if isinstance(v, float):
        return {"float": num(v)}
    return v


def num(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def result(v, args):
    if isinstance(v, torch.Tensor):
        d = enc(v)
        d["stride"] = list(v.stride())
        d["offset"] = v.storage_offset()
        d["repr"] = repr(v)
        d["shares"] = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)
                       and a.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()]
        return d
    if isinstance(v, (tuple, list)) and not isinstance(v, torch.Size):
        d = {"tuple" if isinstance(v, tuple) else "list": [result(x, args) for x in v]}
        if hasattr(v, "_fields"):
            d["names"] = list(v._fields)
        return d
    return enc(v)


def resolve(name):
    if name.startswith("Tensor."):
        attr = name[len("Tensor."):]
        return lambda self, *a, **k: getattr(self, attr)(*a, **k)
    if name.startswith("F."):
        return getattr(F, name[2:])
    obj = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def case(name, *args, **kwargs):
    fn = resolve(name)
    # Arguments are cloned so in-place ops don't leak into the recorded inputs.
    record = {"op": name, "args": [enc(a) for a in args], "kwargs": {k: enc(v) for k, v in kwargs.items()}}
    call_args = [a.clone() if isinstance(a, torch.Tensor) and a.is_contiguous() else a for a in args]
    try:
        out = fn(*call_args, **kwargs)
        record["result"] = result(out, call_args)
        if name.endswith("_") or name in ("Tensor.__setitem__",):
            record["self_after"] = result(call_args[0], [])
    except Exception as e:  # recorded: the runtime must raise the same class
        record["error"] = type(e).__name__
        record["message"] = str(e).split("\n")[0]
    CASES.append(record)


def sinus(*shape, scale=0.37, mul=4.0, dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    return (torch.sin(torch.arange(n, dtype=torch.float32) * scale) * mul).reshape(shape).to(dtype)


A = torch.tensor([[1.5, -2.0, 3.25], [0.0, 4.0, -0.5]])
B = torch.tensor([10.0, -1.0, 0.25])
I = torch.tensor([[7, -3, 2], [-8, 5, 0]])
J = torch.tensor([2, -4, 3])
M = torch.tensor([[True, False, True], [False, False, True]])
X = sinus(4, 5)
Y = sinus(2, 3, 4, scale=0.21, mul=2.0)

# creation and dtype inference
case("torch.arange", 5)
case("torch.arange", 1, 4, 0.5)
case("torch.arange", 0, 10, 3)
case("torch.arange", 10, 0, -3)
case("torch.arange", 0.0, 1.0, 0.1)
case("torch.arange", 5, dtype=torch.float64)
case("torch.linspace", -2.0, 2.0, 9)
case("torch.linspace", 0, 10, 5, dtype=torch.int64)
case("torch.linspace", 0.0, 1.0, 7)
case("torch.zeros", 2, 3)
case("torch.ones", (2, 2), dtype=torch.int32)
case("torch.full", (2, 3), 7)
case("torch.full", (2,), 1.5)
case("torch.full", (3,), True)
case("torch.eye", 3)
case("torch.eye", 2, 4)
case("torch.tensor", [[1, 2], [3, 4]])
case("torch.tensor", [1.0, 2, 3])
case("torch.tensor", [True, False])
case("torch.tensor", [])
case("torch.tensor", 3.5)
case("torch.tensor", [[1, 2], [3]])
case("torch.zeros_like", I)
case("torch.full_like", A, 2)
case("torch.ones_like", A, dtype=torch.bfloat16)

# promotion with scalars and tensors
for other in [2, 2.5, True]:
    case("torch.mul", I, other)
    case("torch.mul", A, other)
    case("torch.add", M, other)
case("torch.add", M, M)
case("torch.add", I, A)
case("torch.add", I.to(torch.int32), 5)
case("torch.add", I.to(torch.uint8), I.to(torch.int8))
case("torch.add", A.to(torch.float16), A.to(torch.bfloat16))
case("torch.add", A.to(torch.float16), 1000.0)
case("torch.add", I, torch.tensor(1.5, dtype=torch.float64))
case("torch.add", A, torch.tensor(1.5, dtype=torch.float64))
case("torch.add", A, B, alpha=2)
case("torch.sub", M, M)
case("torch.sub", A, 1)
case("Tensor.__rsub__", A, 1)
case("torch.div", I, J)
case("torch.div", I, J, rounding_mode="floor")
case("torch.div", I, J, rounding_mode="trunc")
case("torch.floor_divide", I, J)
case("torch.remainder", I, J)
case("torch.remainder", A, -1.5)
case("torch.floor_divide", A, -1.5)
case("torch.fmod", I, J)
case("torch.floor_divide", I, 0)
case("torch.pow", I, 2)
case("torch.pow", I, -1)
case("torch.pow", A, 2)
case("torch.pow", A, 0.5)
case("torch.pow", A, B)
case("torch.pow", 2, J)
case("Tensor.__rpow__", A, 2)
case("Tensor.__truediv__", A, 0)
case("Tensor.__rtruediv__", I, 1)
case("torch.maximum", A, torch.tensor([1.0, float("nan"), 0.0]))
case("torch.minimum", I, J)
for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
    case("torch." + op, A, B)
case("torch.eq", I, 2.0)
case("torch.logical_and", M, A)
case("torch.logical_or", I, 0)
case("torch.logical_not", I)
case("Tensor.__and__", M, torch.tensor([True, True, False]))
case("Tensor.__or__", I, J)
case("Tensor.__xor__", I, 3)
case("Tensor.__invert__", M)
case("Tensor.__invert__", A)
case("Tensor.__neg__", M)
case("Tensor.__add__", A, B)
case("Tensor.__mul__", B, A)
case("Tensor.__matmul__", A, B)

# unary math and activations
for op in ["neg", "abs", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "rsqrt", "floor", "ceil",
           "round", "trunc", "sign", "erf", "reciprocal", "square", "isnan"]:
    case("torch." + op, A)
case("torch.exp", I)
case("torch.sqrt", J)
case("torch.abs", J)
case("torch.relu", I)
case("torch.round", torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5]))
case("F.gelu", X)
case("F.gelu", X, approximate="tanh")
case("F.silu", X)
case("F.gelu", I)
case("F.leaky_relu", A, 0.1)
case("F.softplus", A)
case("torch.sigmoid", A.to(torch.float16))
case("torch.exp", A.to(torch.bfloat16))
case("torch.where", M, A, B)
case("torch.where", M, A, 0.0)
case("torch.where", M, 1, 0)
case("torch.where", A, A, B)
case("torch.clamp", A, min=-1.0, max=2.0)
case("torch.clamp", I, min=-1)
case("torch.clamp", I, min=0.5)
case("torch.clamp", A, max=B)
case("torch.clamp_min", A, 0.0)
case("Tensor.masked_fill", A, M, -1.0)
case("Tensor.masked_fill", A, torch.tensor([True, False, False]), float("-inf"))
case("Tensor.masked_fill", I, M, 2.7)
case("Tensor.masked_fill", A, I > 0, 1.0)

# in-place
case("Tensor.add_", A.clone(), B)
case("Tensor.add_", I.clone(), 2.5)
case("Tensor.mul_", A.clone(), 2)
case("Tensor.clamp_", A.clone(), 0.0, 1.0)
case("Tensor.zero_", A.clone())
case("Tensor.fill_", I.clone(), 3)
case("Tensor.copy_", A.clone(), B)
case("Tensor.__iadd__", I.clone(), J)
case("Tensor.__isub__", A.clone(), 1.0)
case("Tensor.__imul__", A.clone(), B)
case("Tensor.relu_", A.clone())
case("Tensor.add_", B.clone(), A)

# reductions
case("torch.sum", X)
case("torch.sum", X, dim=1)
case("torch.sum", X, dim=-1, keepdim=True)
case("torch.sum", Y, dim=(0, 2))
case("torch.sum", I)
case("torch.sum", M)
case("torch.sum", M, 1)
case("torch.sum", A, dtype=torch.float64)
case("Tensor.sum", X.t(), 0)
case("torch.mean", X)
case("torch.mean", Y, dim=[-1, 0], keepdim=True)
case("torch.mean", I)
case("torch.prod", A)
case("torch.prod", I, 1)
case("torch.amax", Y, dim=(1, 2))
case("torch.amin", X, 0)
case("torch.max", X)
case("torch.max", X, 1)
case("torch.max", X, dim=0, keepdim=True)
case("torch.min", I, 1)
case("torch.max", A, B)
case("torch.max", torch.tensor([[1.0, float("nan"), 3.0], [2.0, 2.0, 1.0]]), 1)
case("torch.argmax", X)
case("torch.argmax", X, dim=1)
case("torch.argmin", torch.tensor([[3, 1, 1], [0, 0, 5]]), 1, True)
case("torch.var", X)
case("torch.var", X, 1)
case("torch.var", X, dim=1, correction=0)
case("torch.var", X, 1, False)
case("torch.var", X, unbiased=False)
case("torch.std", X, dim=0, keepdim=True)
case("torch.std", torch.tensor([1.0]))
case("torch.var", I)
case("torch.all", M)
case("torch.any", M, 1)
case("torch.logsumexp", X, 1)
case("torch.cumsum", I, 1)
case("torch.norm", X)
case("torch.softmax", X, -1)
case("torch.softmax", X, dim=0)
case("F.softmax", Y, dim=1)
case("F.log_softmax", X, dim=1)
case("torch.softmax", torch.tensor([1000.0, 0.0, -1000.0]), 0)
case("torch.softmax", torch.tensor([float("-inf"), 0.0, 1.0]), 0)
case("torch.softmax", I, 0)
case("torch.softmax", A.to(torch.float16), 1)
case("torch.softmax", I, 0, dtype=torch.float32)

# matmul family
case("torch.matmul", A, A.t())
case("torch.matmul", A, B)
case("torch.matmul", B, A.t())
case("torch.matmul", B, B)
case("torch.matmul", Y, sinus(4, 2))
case("torch.matmul", Y, sinus(3, 4, 2, scale=0.11))
case("torch.matmul", sinus(5, 1, 2, 3), sinus(4, 3, 2, scale=0.3))
case("torch.matmul", I, I.t())
case("torch.matmul", A, A)
case("torch.mm", A, A.t().to(torch.float64))
case("torch.bmm", Y, Y.transpose(1, 2))
case("torch.matmul", A.to(torch.float16), A.t().to(torch.float16))
case("F.linear", X, sinus(3, 5, scale=0.5, mul=0.3), torch.tensor([0.1, -0.2, 0.3]))
case("F.linear", Y, sinus(2, 4, scale=0.5, mul=0.3))
case("torch.addmm", B, A.t(), A)

# nn
case("F.layer_norm", X, (5,))
case("F.layer_norm", Y, (3, 4), sinus(3, 4, scale=0.1, mul=1.0), sinus(3, 4, scale=0.2, mul=0.5))
case("F.layer_norm", X, (4,))
case("F.dropout", X, 0.5, False)
case("F.embedding", torch.tensor([[0, 2], [1, 0]]), X)
case("F.embedding", torch.tensor([9]), X)
case("F.scaled_dot_product_attention", Y, Y, Y)
case("F.scaled_dot_product_attention", Y, Y, Y, is_causal=True)
case("F.mse_loss", A, torch.zeros(2, 3))
case("F.cross_entropy", X, torch.tensor([0, 4, 2, 1]))
case("F.cross_entropy", X, torch.tensor([0, 4, 2, 1]), reduction="none")

# shapes, views and strides
case("Tensor.view", X, 2, 10)
case("Tensor.view", X, -1)
case("Tensor.view", X.t(), -1)
case("Tensor.view", X, 3, -1)
case("Tensor.reshape", X.t(), -1)
case("Tensor.reshape", X.t(), 5, 2, 2)
case("Tensor.reshape", X, (2, 2, 5))
case("Tensor.permute", Y, 2, 0, 1)
case("Tensor.permute", Y, (1, 0))
case("Tensor.transpose", Y, 0, 2)
case("Tensor.t", A)
case("Tensor.t", Y)
case("Tensor.unsqueeze", A, 1)
case("Tensor.unsqueeze", A, -1)
case("Tensor.squeeze", torch.zeros(1, 3, 1))
case("Tensor.squeeze", torch.zeros(1, 3, 1), 0)
case("Tensor.squeeze", torch.zeros(1, 3, 1), 1)
case("Tensor.expand", B, 2, 3)
case("Tensor.expand", torch.zeros(3, 1), -1, 4)
case("Tensor.expand", A, 2, 4)
case("Tensor.flatten", Y)
case("Tensor.flatten", Y, 1)
case("Tensor.contiguous", X.t())
case("Tensor.mul", X.t(), 2.0)
case("torch.add", X.t(), X.t())
case("torch.add", X.t(), 1.0)
case("Tensor.sin", Y.permute(2, 0, 1))
case("torch.cat", [A, A], 0)
case("torch.cat", [A, B.unsqueeze(0)], 0)
case("torch.cat", [A, I], 1)
case("torch.cat", [A, torch.zeros(0)])
case("torch.cat", [A, B], 0)
case("torch.stack", [B, B])
case("torch.stack", [B, B], 1)
case("torch.split", X, 3)
case("torch.split", X, [1, 4], 1)
case("Tensor.chunk", X, 3, 1)
case("torch.triu", X)
case("torch.tril", X, -1)
case("torch.triu", Y, 1)
case("Tensor.repeat", B, 2, 2)
case("torch.flip", A, [0, 1])
case("Tensor.narrow", X, 1, 1, 3)
case("torch.unbind", A)

# indexing
def gi(t, idx):
    case("Tensor.__getitem__", t, idx)


gi(X, 1)
gi(X, -1)
gi(X, (slice(None), 0))
gi(X, (slice(1, None, 2), slice(None, None, 2)))
gi(X, (slice(-3, -1), Ellipsis))
gi(Y, (Ellipsis, 1))
gi(Y, (None, 0, None))
gi(X, (slice(None), None))
gi(X, X > 0)
gi(X, torch.tensor([0, 2, -1]))
gi(X, (slice(None), torch.tensor([1, 3])))
gi(Y, (torch.tensor([0, 1]), slice(None), torch.tensor([0, 3])))
gi(Y, (slice(None), torch.tensor([0, 2]), torch.tensor([1, 3])))
gi(X, [0, 2])
gi(X, torch.tensor([True, False, True, False]))
gi(X, 7)
gi(X, (0, 0, 0))
gi(X, True)
gi(X, torch.tensor([1.0]))


def si(t, idx, v):
    case("Tensor.__setitem__", t.clone(), idx, v)


si(X, (slice(None), 0), 0.0)
si(X, X > 0, -1.0)
si(X, 1, B.new_tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
si(X, (slice(None), torch.tensor([0, 2])), 9.0)
si(I, M, 0)
si(X, (Ellipsis, -1), torch.tensor([1.0, 2.0, 3.0, 4.0]).unsqueeze(1).squeeze(1))
si(X, torch.tensor([0, 0]), 5.0)

# conversions
case("Tensor.to", A, torch.float16)
case("Tensor.to", A, torch.int64)
case("Tensor.to", torch.tensor([-1.7, 2.9, 300.0]), torch.uint8)
case("Tensor.to", torch.tensor([0.0, -0.0, 2.0]), torch.bool)
case("Tensor.to", torch.tensor([1.0009765625, 1.00048828125, 65519.0, 65520.0, 1e-8, 5.96e-8, -2.9802322387695312e-08]), torch.float16)
case("Tensor.to", torch.tensor([1.00390625, 1.005859375, 3.0e38, -1.0e-40]), torch.bfloat16)
case("Tensor.to", torch.tensor([1, 2], dtype=torch.int64), "cpu")
case("Tensor.float", I)
case("Tensor.half", X)
case("Tensor.bfloat16", X)
case("Tensor.long", A)
case("Tensor.bool", A)
case("Tensor.int", A)
case("Tensor.double", A)
case("Tensor.item", torch.tensor([2.5]))
case("Tensor.item", A)
case("Tensor.tolist", A)
case("Tensor.tolist", I)
case("Tensor.size", Y)
case("Tensor.size", Y, -1)
case("Tensor.dim", Y)
case("Tensor.numel", Y)
case("Tensor.stride", Y.transpose(0, 2))

# printing (repr of the result carries it)
for t in [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1, 2]), torch.tensor([True, False]),
          torch.tensor([1.5, 2.0]).to(torch.bfloat16), torch.tensor([1.0, 2.0]).to(torch.float16),
          torch.tensor([1e-5, 1.0]), torch.tensor([1e9, 1.0]), torch.tensor([123456.0, 0.5]),
          torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), torch.tensor([float("nan"), 1.5]),
          torch.tensor(3.5), torch.tensor(7), torch.tensor(-0.0), torch.tensor([0.0, -0.0]),
          torch.zeros(0), torch.zeros(0, 3), torch.zeros(0, dtype=torch.int64),
          torch.arange(2000), torch.arange(1200.0).reshape(40, 30) * 0.5, torch.arange(30.0) * 1.1,
          torch.arange(100).reshape(10, 10), torch.tensor([[1e-8, 1.0], [2.0, 3.0]]), torch.tensor([1, 2], dtype=torch.int32),
          torch.tensor([100000, -5]), sinus(2, 3, 4), torch.tensor([0.1, 0.25], dtype=torch.float64),
          torch.tensor([1e16, 1.0]), torch.tensor([12345678.0]),
          torch.tensor([-1.0, 0.5]), torch.arange(12.0).reshape(2, 2, 3), torch.tensor([[True], [False]])]:
    case("Tensor.clone", t)

# A leaf that requires grad prints its flag (clone would add grad_fn, which needs autograd).
case("Tensor.requires_grad_", torch.ones(3))

json.dump({"torch": torch.__version__, "cases": CASES}, sys.stdout, indent=None)
