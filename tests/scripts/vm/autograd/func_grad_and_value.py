# torch.func.grad / grad_and_value run eagerly: the gradient of a scalar function, argnums as a tuple, has_aux,
# grad of grad (the inner gradient stays differentiable), vmap of grad (per-sample gradients), and a result that
# requires no grad when nothing outside did.
# expect: [3.0, 12.0] False
# expect: [3.0, 12.0] 9.0
# expect: [4.0, 5.0] [1.0, 2.0]
# expect: [2.0, 4.0] 1.5
# expect: 12.0
# expect: [[3.0], [12.0]]
# expect error: RuntimeError: grad(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 dims.
import torch
from torch.func import grad, grad_and_value, vmap


def cube_sum(x):
    return (x ** 3).sum()


x = torch.tensor([1.0, 2.0])
g = grad(cube_sum)(x)
print(g.tolist(), g.requires_grad)
g, v = grad_and_value(cube_sum)(x)
print(g.tolist(), v.item())
a = torch.tensor([1.0, 2.0])
b = torch.tensor([4.0, 5.0])
ga, gb = grad(lambda p, q: (p * q).sum(), argnums=(0, 1))(a, b)
print(ga.tolist(), gb.tolist())
g, aux = grad(lambda t: ((t * t).sum(), t.mean()), has_aux=True)(x)
print(g.tolist(), aux.item())
print(grad(grad(lambda t: t ** 3))(torch.tensor(2.0)).item())
print(vmap(grad(cube_sum))(torch.tensor([[1.0], [2.0]])).tolist())
grad(lambda t: t * 2)(x)
