# torch.compile accepts PyTorch's backend names only, and list_backends() shows them without the debugging ones
# (eager, aot_eager); an unknown name is refused when torch.compile is called, in PyTorch's wording. Backends
# cwb has no compiler for run their graphs on the eager runtime and compute what eager computes.
# expect: ['cudagraphs', 'inductor', 'onnxrt', 'openxla', 'tvm'] True
# expect: InvalidBackend Invalid backend: 'bogus', see `torch._dynamo.list_backends()` for available backends.
# expect: [2.0, 4.0] [2.0, 4.0] [2.0, 4.0] [2.0, 4.0]
import torch


def f(x):
    return x * 2


print(torch._dynamo.list_backends(), torch.compiler.list_backends() == torch._dynamo.list_backends())
try:
    torch.compile(f, backend="bogus")
except Exception as e:
    print(type(e).__name__, e)
x = torch.tensor([1.0, 2.0])
print(*[torch.compile(f, backend=name)(x).tolist() for name in ["eager", "aot_eager", "tvm", "cudagraphs"]])
