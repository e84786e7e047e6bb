# Double backward eagerly (create_graph=True), checked against closed forms and central finite differences of
# the first-order gradient: d/dx sum((3x^2)^2) = 36x^3; a Hessian-vector product of sum(exp(x) * x) is
# exp(x)(2 + x) v; a WGAN-style gradient penalty through linear/tanh/softmax layers; backward(create_graph=True)
# leaves a .grad with history; log_softmax and matmul second derivatives.
# expect: [3.0, 12.0, 27.0] True
# expect: [36.0, 288.0, 972.0]
# expect: hvp True
# expect: x.grad requires grad: True True
# expect: second backward of x.grad: [6.0, -12.0, 3.0]
# expect: penalty True
# expect: log_softmax matmul True
import math
import torch
import torch.nn.functional as F

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
g, = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
print(g.tolist(), g.requires_grad)
(g ** 2).sum().backward()
print(x.grad.tolist())

torch.manual_seed(0)
x = torch.randn(5, dtype=torch.float64, requires_grad=True)
v = torch.randn(5, dtype=torch.float64)
g, = torch.autograd.grad((torch.exp(x) * x).sum(), x, create_graph=True)
hv, = torch.autograd.grad((g * v).sum(), x)
expected = [math.exp(a) * (2 + a) * b for a, b in zip(x.tolist(), v.tolist())]
print("hvp", all(abs(a - b) < 1e-12 for a, b in zip(hv.tolist(), expected)))

x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
(x ** 3).sum().backward(create_graph=True)
print("x.grad requires grad:", x.grad.requires_grad, x.grad.grad_fn is not None)
first = x.grad
x.grad = None
first.sum().backward()
print("second backward of x.grad:", x.grad.tolist())


def first_order_gradient_check(loss_of, params, eps=1e-6):
    """d loss / d p by autograd (loss built with create_graph inside) against central differences, per element."""
    loss = loss_of()
    grads = torch.autograd.grad(loss, params)
    worst = 0.0
    for p, grad in zip(params, grads):
        flat = p.detach().view(-1)
        for i in range(flat.numel()):
            keep = flat[i].item()
            with torch.no_grad():
                flat[i] = keep + eps
            plus = loss_of().item()
            with torch.no_grad():
                flat[i] = keep - eps
            minus = loss_of().item()
            with torch.no_grad():
                flat[i] = keep
            numeric = (plus - minus) / (2 * eps)
            worst = max(worst, abs(grad.reshape(-1)[i].item() - numeric) / (1e-6 + abs(numeric)))
    return worst


torch.manual_seed(1)
w1 = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
b1 = torch.randn(4, dtype=torch.float64, requires_grad=True)
w2 = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
data = torch.randn(6, 3, dtype=torch.float64)
class_weights = torch.tensor([1.0, -0.5], dtype=torch.float64)


def penalty():
    inp = data.clone().requires_grad_(True)
    critic = (F.softmax(F.linear(torch.tanh(F.linear(inp, w1, b1)), w2), dim=1) * class_weights).sum()
    gx, = torch.autograd.grad(critic, inp, create_graph=True)
    return ((torch.sqrt((gx ** 2).sum(dim=1)) - 1) ** 2).mean()


print("penalty", first_order_gradient_check(penalty, [w1, b1, w2]) < 1e-5)

a = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
m = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)


def log_softmax_matmul():
    out = F.log_softmax(a @ m, dim=1)
    ga, gm = torch.autograd.grad((out * out).sum(), [a, m], create_graph=True)
    return (ga * ga).sum() + (gm.t() @ gm).mean()


print("log_softmax matmul", first_order_gradient_check(log_softmax_matmul, [a, m]) < 1e-5)
