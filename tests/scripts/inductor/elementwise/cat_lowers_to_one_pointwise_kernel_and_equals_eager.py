# torch.cat lowers into one generated kernel whose elements read the input their position falls in (Inductor's
# pointwise cat), so no eager cat runs: along the first, a middle and the last dim (negative too), of views (a
# transposed attention-shaped gradient) and of mixed dtypes (promoted as eagerly); the gradient of split (a cat of
# the items' gradients) in a training step equals eager too.
# expect: pieces True
# expect: training True
# expect no code: extern_kernels.torch.cat(
import torch
from _lib.eager_comparison import eager_and_compiled, same_as_eager

torch.manual_seed(0)
a, b, c = torch.randn(2, 3, 5), torch.randn(2, 4, 5), torch.randn(2, 3, 5)
q = torch.randn(2, 4, 6, 8)


def pieces(a, b, c, q):
    t = q.transpose(1, 2)
    return [torch.cat([a, b, c], dim=1), torch.cat((a, c), 0) * 2.0, torch.cat([a, c, a], dim=-1).relu(),
            torch.cat([t.reshape(2, 6, 32), t.reshape(2, 6, 32).sin()], 2), torch.cat([a, c.to(torch.float64)], 2),
            torch.cat([a.to(torch.int32), c.to(torch.int32)], 1)]


with torch.no_grad():
    print("pieces", same_as_eager(eager_and_compiled(lambda f: f(a, b, c, q), lambda f: f(pieces))))


def loss_of(p, w):
    u, v, s = (p @ w).split(4, dim=1)
    return (u * v).sum() + s.pow(2).sum()


def step(f):
    p = x.clone().requires_grad_()
    loss = f(p, w)
    loss.backward()
    return [loss.detach(), p.grad]


x, w = torch.randn(6, 5), torch.randn(5, 12)
print("training", same_as_eager([step(loss_of), step(torch.compile(loss_of))]))
