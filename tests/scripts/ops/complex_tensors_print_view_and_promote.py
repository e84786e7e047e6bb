# Complex tensors in the eager runtime: printing as PyTorch's _tensor_str (real and imaginary formatters side by
# side, complex64 the default complex dtype), view_as_complex / view_as_real / .real / .imag sharing storage,
# promotion of complex with real tensors and numbers, abs/angle/conj, sum/mean, matmul, and PyTorch's errors.
# expect: tensor([ 1.0000+0.5000j, -2.5000+3.0000j])
# expect: tensor([1.+3.j, 2.-4.j], dtype=torch.complex128)
# expect: tensor(1.5000-0.5000j)
# expect: True False torch.complex64 torch.float32
# expect: [10.0, 1.0, 3.0, 3.0] [10.0, 3.0] [1.0, 3.0]
# expect: torch.complex128 torch.complex64 torch.complex128 torch.complex64
# expect: tensor([5., 5.]) tensor([0.9273, 2.2143])
# expect: tensor([ 3.-4.j, -3.-4.j])
# expect: tensor(-14.+0.j) tensor(-7.+0.j)
# expect: tensor([[ -5.-1.j],
# expect:         [-12.+2.j]])
# expect: Tensor must have a last dimension of size 2
# expect: view_as_real is only supported for complex tensors
# expect: imag is not implemented for tensors with non-complex dtypes.
# expect: result type ComplexFloat can't be cast to the desired output type Float
# expect graph_breaks: 0
import torch

print(torch.complex(torch.tensor([1.0, -2.5]), torch.tensor([0.5, 3.0])))
print(torch.complex(torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([3.0, -4.0], dtype=torch.float64)))
print(torch.complex(torch.tensor(1.5), torch.tensor(-0.5)))
z = torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(z.is_complex(), torch.is_complex(z.real), z.dtype, z.imag.dtype)

x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
w = torch.view_as_complex(x)
w.real[0] = 10.0
w.imag.sub_(1.0)
print(x.flatten().tolist(), w.real.tolist(), torch.view_as_real(w)[:, 1].tolist())

c = torch.ones(2, dtype=torch.complex64)
print((c * torch.ones(2, dtype=torch.float64)).dtype, (c + 1.5).dtype, torch.promote_types(torch.complex64, torch.float64),
      (torch.arange(2) * c).dtype)
v = torch.complex(torch.tensor([3.0, -3.0]), torch.tensor([4.0, 4.0]))
print(v.abs(), v.angle())
print(v.conj())
a = torch.complex(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[0.0, 1.0], [1.0, 0.0]]))
b = torch.complex(torch.tensor([[-1.0], [-2.0]]), torch.tensor([[1.0], [0.0]]))
print((v * v).sum(), (v * v).mean())
print(a @ b)
for bad in (lambda: torch.view_as_complex(torch.ones(3)), lambda: torch.view_as_real(torch.ones(2)), lambda: torch.ones(2).imag,
            lambda: torch.ones(2).add_(c)):
    try:
        bad()
    except RuntimeError as e:
        print(e)
