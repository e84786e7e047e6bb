# keep_tensor_guards_unsafe keeps only the TENSOR_MATCH guards: an int argument that changes is not checked (the
# graph keeps the 1 it was traced with), while a tensor of another size still recompiles.
# expect: [2.0, 2.0, 2.0]
# expect: [2.0, 2.0, 2.0]
# expect: [2.0, 2.0, 2.0, 2.0]
# expect recompiles: 1
import torch


def f(x, n):
    return x + n


cf = torch.compile(f, options={"guard_filter_fn": torch.compiler.keep_tensor_guards_unsafe})
print(cf(torch.ones(3), 1).tolist())
print(cf(torch.ones(3), 2).tolist())
print(cf(torch.ones(4), 1).tolist())
