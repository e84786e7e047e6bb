# Every derivative rule of the joint graph against the eager runtime's autograd: one small function per op form
# (operators and torch functions, broadcasting, keyword arguments), the loss and the gradients of all three inputs.
import torch
import torch.nn.functional as F
from _lib.eager_comparison import same_as_eager

def f_add(a, b, c): return (torch.add(a, b, alpha=2.0) - torch.sub(a, c, alpha=0.5) + (a - b)).sum()
def f_mul_div(a, b, c): return (a * b / (c.abs() + 1.0) + 3.0 / (b * b + 1.0) - a / 4.0).sum()
def f_pow(a, b, c): return (a ** 2 + (b.abs() + 1.0) ** 1.5 + torch.pow(c, 3)).mean()
def f_matmul(a, b, c): return (torch.matmul(a.view(2, 3, 4), b.t()) @ c).sum()
def f_mm_bmm(a, b, c): return (torch.mm(a.t(), b) * 0.5).sum() + torch.bmm(a.view(3, 2, 4), c.view(3, 4, 2)).sum()
def f_linear(a, b, c): return F.linear(a.view(2, 3, 4), b, c).sum() + F.linear(a, b).mean()
def f_activations(a, b, c): return (F.relu(a) * F.gelu(b) + F.silu(c) + torch.tanh(a) * torch.sigmoid(b) + F.gelu(c, approximate="tanh")).sum()
def f_math(a, b, c): return (torch.exp(a * 0.1) + torch.log(b.abs() + 1.0) + torch.sin(c) * torch.cos(a) + torch.sqrt(b * b + 1.0) + torch.rsqrt(c * c + 1.0) - torch.abs(a) + (-b)).sum()
def f_reductions(a, b, c): return (a.sum(dim=1, keepdim=True) * b.mean(0) + c.sum(1).unsqueeze(1)).sum() + a.mean()
def f_softmaxes(a, b, c): return (torch.softmax(a, dim=1) * b).sum() + (F.log_softmax(c, dim=-1) * a).sum()
def f_layer_norm(a, b, c): return (F.layer_norm(a, (4,), b, c) * a).sum() + F.layer_norm(a.view(2, 3, 4), (3, 4)).pow(2).sum()
def f_cross_entropy(a, b, c):
    y = torch.tensor([1, 3, 0, 2, 1, 3])
    z = torch.tensor([1, -100, 0, 2, 3, 3])
    return F.cross_entropy(a, y) + F.cross_entropy(b, z, reduction="sum") + (F.cross_entropy(c, y, reduction="none") * 2.0).sum()
def f_views(a, b, c): return (a.reshape(4, 6).t().flatten() * b.permute(1, 0).contiguous().view(-1)).sum() + a.unsqueeze(0).squeeze(0).transpose(0, 1).clone().sum() + c.sum()
def f_broadcast(a, b, c): return (a * c + b.expand(2, 6, 4)).sum()
def f_masked(a, b, c): return a.masked_fill(b > 0, 0.0).sum() + F.dropout(c, p=0.0).sum() + (a * (b > 0.5)).sum()

def f_split(a, b, c):
    q, k, v = a.split(4, dim=1)
    return (q * k).sum() + v.chunk(2, 0)[1].sum() * 2.0 + a.unbind(0)[2].sum() + (b * c).sum()

# Ops without a graph rule: their derivative is only the eager runtime's formula, recorded into the joint graph.
def f_recorded(a, b, c):
    return (torch.atan(a) * torch.clamp(b, -0.5, 0.8) + F.leaky_relu(c, 0.2) + F.softplus(a) * torch.log1p(b * b)
            + torch.maximum(a, c) + torch.where(b > 0, a * c, torch.erf(b)) + torch.reciprocal(c * c + 1.0)
            + torch.expm1(a * 0.5) * torch.square(b) + torch.sinh(c * 0.3) + torch.lerp(a, b, 0.25)).sum()

def f_embedding(a, b, c):
    idx = torch.tensor([[0, 3, 3], [5, 1, 0]])
    return (F.embedding(idx, a) * F.embedding(idx[0], b).sum(0)).sum() + c.sum()

def f_embedding_padding(a, b, c):
    idx = torch.tensor([[0, 3, 3], [5, 1, 0]])
    return (F.embedding(idx, a, padding_idx=3) * F.embedding(idx[1], b, padding_idx=-1).sum(0)).sum() + c.sum()

def f_attention(a, b, c):
    q = a.view(1, 2, 6, 2)
    k = (b * 0.5).view(1, 2, 6, 2)
    v = torch.tanh(c).view(1, 2, 6, 2)
    k4, _ = k.split([4, 2], dim=2)
    v4, _ = v.split([4, 2], dim=2)
    return ((F.scaled_dot_product_attention(q, k, v, is_causal=True) * v).sum()
            + F.scaled_dot_product_attention(q, k4, v4, scale=0.3).pow(2).sum())

def f_indexing(a, b, c):
    x = a.view(2, 3, 4)
    return ((x[:, 1:, :2] * 2.0).sum() + x[1, :, -1].pow(2).sum() + (x[..., None, 1:3] * x[:, None, :, :2]).sum()
            + b[2:5].sum() + b[-1].mean() * 3.0 + (c[:, :3] ** 2).sum() + c[..., 3:].sum())

FUNCTIONS = {
    "f_add": (f_add, [6, 4], [6, 4], [6, 4]),
    "f_mul_div": (f_mul_div, [6, 4], [6, 4], [6, 4]),
    "f_pow": (f_pow, [6, 4], [6, 4], [6, 4]),
    "f_matmul": (f_matmul, [6, 4], [5, 4], [5, 2]),
    "f_mm_bmm": (f_mm_bmm, [6, 4], [6, 3], [6, 4]),
    "f_linear": (f_linear, [6, 4], [5, 4], [5]),
    "f_activations": (f_activations, [6, 4], [6, 4], [6, 4]),
    "f_math": (f_math, [6, 4], [6, 4], [6, 4]),
    "f_reductions": (f_reductions, [6, 4], [6, 4], [6, 4]),
    "f_softmaxes": (f_softmaxes, [6, 4], [6, 4], [6, 4]),
    "f_layer_norm": (f_layer_norm, [6, 4], [4], [4]),
    "f_cross_entropy": (f_cross_entropy, [6, 4], [6, 4], [6, 4]),
    "f_views": (f_views, [2, 12], [4, 6], [3]),
    "f_broadcast": (f_broadcast, [6, 4], [4], [6, 1]),
    "f_masked": (f_masked, [6, 4], [6, 4], [6, 4]),
    "f_split": (f_split, [6, 12], [3], [3]),
    "f_embedding": (f_embedding, [6, 4], [6, 4], [2]),
    "f_embedding_padding": (f_embedding_padding, [6, 4], [6, 4], [2]),
    "f_attention": (f_attention, [6, 4], [6, 4], [6, 4]),
    "f_indexing": (f_indexing, [6, 4], [6, 4], [6, 4]),
    "f_recorded": (f_recorded, [6, 4], [6, 4], [6, 4]),
}

def grads(wrapped, shapes):
    """The loss of wrapped on seeded inputs of these shapes, then each input's gradient (zeros(1) for none)."""
    torch.manual_seed(11)
    inputs = [torch.randn(*shape, requires_grad=True) for shape in shapes]
    loss = wrapped(*inputs)
    loss.backward()
    return [loss.detach()] + [x.grad if x.grad is not None else torch.zeros(1) for x in inputs]


def every_rule_equals_eager(backend):
    """Prints each function's name and same_as_eager of its eager and compiled gradients."""
    for name, entry in FUNCTIONS.items():
        fn, shapes = entry[0], list(entry[1:])
        print(name, same_as_eager([grads(fn, shapes), grads(torch.compile(fn, backend=backend), shapes)]))
