# Backward through complex intermediates, by PyTorch's convention (a complex input's gradient is d/dx + i d/dy of
# the real loss; a real input keeps the real part): view_as_complex / view_as_real, complex products, quotients,
# abs, torch.complex, .real / .imag, eagerly and compiled (aot_eager's joint graph has no complex formulas, so it
# runs the graph eagerly). A complex result used to carry no history, so a loss that also read x directly got a
# gradient without the complex path; an op without a complex formula raises at backward.
# expect: [[2.0, -1.0], [3.0, 4.0]] ViewAsRealBackward0
# expect: [[3.0, 0.0], [4.0, 5.0]]
# expect: [[2.0, -1.0], [3.0, 4.0]]
# expect: True True
# expect: [1.0, 0.0] [0.0, -1.0]
# expect: [1.0, 1.0]
# expect: True
# expect: [[2.0, -1.0], [3.0, 4.0]]
# expect: the derivative of polar through complex tensors is not implemented in cwb
# expect: True
import torch

weights = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
rotate = torch.complex(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0]))  # [1j, 1]


def rotated_loss(x):
    y = torch.view_as_real(torch.view_as_complex(x) * rotate)
    return (y * weights).sum(), y


x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
loss, y = rotated_loss(x)
loss.backward()
print(x.grad.tolist(), y.grad_fn.name())

# A loss that reads x directly and through a complex path: both contributions reach x.grad.
x.grad = None
loss2 = rotated_loss(x)[0] + x.sum()
loss2.backward()
print(x.grad.tolist())

compiled = torch.compile(rotated_loss, backend="aot_eager")
xc = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
compiled(xc)[0].backward()
print(xc.grad.tolist())

# |z| has gradient z / |z| (0 at 0).
p = torch.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
torch.view_as_complex(p).abs().sum().backward()
print(torch.allclose(p.grad, torch.tensor([[0.6, 0.8], [0.0, 0.0]])), p.grad[1].tolist() == [0.0, 0.0])

# torch.complex(a, b).imag / .real pick one part.
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.complex(a, b)
(c.real[0] - c.imag[1]).backward()
print(a.grad.tolist(), b.grad.tolist())

# Quotient: d/dz (z / w) . real with w = 1 + 1j: 1 / conj(w) = (1 + 1j) / 2 per unit of the real part.
q = torch.tensor([2.0, -4.0], requires_grad=True)
w = torch.complex(torch.tensor(1.0), torch.tensor(1.0))
(torch.view_as_complex(q) / w).real.backward()
print([v * 2 for v in q.grad.tolist()])

# A complex leaf: the gradient of sum(|z|^2) = sum(z * conj(z)) is 2z.
z = torch.complex(torch.tensor([1.0, -2.0]), torch.tensor([0.5, 3.0])).requires_grad_()
(z * z.conj()).real.sum().backward()
print(torch.allclose(torch.view_as_real(z.grad), torch.view_as_real(z.detach() * 2)))

xc2 = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
torch.compile(rotated_loss, backend="inductor")(xc2)[0].backward()
print(xc2.grad.tolist())

r = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    torch.view_as_real(torch.polar(r, torch.tensor([0.0, 1.0]))).sum().backward()
except Exception as e:
    print(str(e))
print(r.grad is None)
