# Item assignment into tensors is traced as Dynamo traces it, one operator.setitem node that writes in place
# (no graph break): on a clone, on an input (the caller's tensor changes), through view_as_real of a complex view,
# and into complex64/complex128 tensors with real scalars and complex tensors; eager, the eager backend,
# aot_eager and the inductor agree.
# expect: [[5.0, 1.0], [5.0, 0.0], [5.0, 4.0]] [[9.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
# expect: [10.0, 2.0, 4.0, 6.0] [[10.0, 2.0], [4.0, 6.0]]
# expect: [[0.0, 0.0], [2.0, 0.0], [1.0, -2.0]] [[[3.0, 0.0], [1.0, -2.0]], [[1.0, 0.0], [3.0, -6.0]]] True
# expect: [[5.0, 1.0], [5.0, 0.0], [5.0, 4.0]] [[9.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
# expect: [10.0, 2.0, 4.0, 6.0] [[10.0, 2.0], [4.0, 6.0]]
# expect: [[0.0, 0.0], [2.0, 0.0], [1.0, -2.0]] [[[3.0, 0.0], [1.0, -2.0]], [[1.0, 0.0], [3.0, -6.0]]] True
# expect: [[5.0, 1.0], [5.0, 0.0], [5.0, 4.0]] [[9.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
# expect: [[5.0, 1.0], [5.0, 0.0], [5.0, 4.0]] [[9.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
# expect graph_breaks: 0
# expect graph_code: y[(slice(None, None, None), 0)] = 5.0;  setitem = y
import torch


def real(x):
    y = x.clone()
    y[:, 0] = 5.0
    y[1:, 1] = x[:-1, 0] * 2
    x[0, 0] = 9.0
    return y


def through_views(x):
    z = torch.view_as_complex(x)
    r = torch.view_as_real(z)
    r[0, 0] = 10.0
    return x.clone().flatten(), z.clone()


def complex_items(w):
    z = torch.zeros(3, dtype=torch.complex64)
    z[1] = 2.0
    z[2] = torch.complex(torch.tensor(1.0), torch.tensor(-2.0))
    w[0] = z[1:]
    w[1, 1] = w[0, 1] * 3
    w[:, 0] += 1
    return torch.view_as_real(z), w


def run(f, g, h):
    x = torch.arange(6, dtype=torch.float32).reshape(3, 2)
    y = f(x)
    print(y.tolist(), x.tolist())
    flat, z = g(torch.arange(4, dtype=torch.float32).reshape(2, 2) * 2)
    print(flat.tolist(), torch.view_as_real(z).tolist())
    w = torch.zeros(2, 2, dtype=torch.complex128)
    z, out = h(w)
    print(z.tolist(), torch.view_as_real(w).tolist(), out is w)


run(real, through_views, complex_items)
c = torch.compile(backend="eager")
run(c(real), c(through_views), c(complex_items))
for backend in ("aot_eager", "inductor"):
    x = torch.arange(6, dtype=torch.float32).reshape(3, 2)
    y = torch.compile(real, backend=backend)(x)
    print(y.tolist(), x.tolist())
