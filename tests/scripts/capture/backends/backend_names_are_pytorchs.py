# torch.compile accepts PyTorch's backend names only, and list_backends() shows them without the debugging ones
# (eager, aot_eager, ...), which list_backends(None) adds (torch 2.11's, its four *_TESTING_ONLY ones too:
# testing_only_backends_plant_their_bugs.py); an unknown name is refused when torch.compile is called, in
# PyTorch's wording. Backends cwb has no compiler for run their graphs on the eager runtime and compute what eager
# computes.
# expect: ['cudagraphs', 'inductor', 'openxla', 'tvm'] True
# expect: ['aot_eager', 'aot_eager_decomp_partition', 'aot_eager_decomp_partition_crossref', 'aot_eager_decomp_partition_with_mode', 'aot_eager_default_partitioner', 'aot_ts', 'cudagraphs', 'dynamo_accuracy_minifier_backend', 'dynamo_minifier_backend', 'eager', 'eager_debug', 'eager_noexcept', 'inductor', 'invoke_subgraph', 'non_leaf_compile_error_TESTING_ONLY', 'openxla', 'openxla_eval', 'pre_dispatch_eager', 'relu_accuracy_error_TESTING_ONLY', 'relu_compile_error_TESTING_ONLY', 'relu_runtime_error_TESTING_ONLY', 'ts', 'tvm']
# expect: InvalidBackend Invalid backend: 'bogus', see `torch._dynamo.list_backends()` for available backends.
# expect: [2.0, 4.0] [2.0, 4.0] [2.0, 4.0] [2.0, 4.0] [2.0, 4.0]
import torch


def f(x):
    return x * 2


print(torch._dynamo.list_backends(), torch.compiler.list_backends() == torch._dynamo.list_backends())
print(torch._dynamo.list_backends(None))
try:
    torch.compile(f, backend="bogus")
except Exception as e:
    print(type(e).__name__, e)
x = torch.tensor([1.0, 2.0])
print(*[torch.compile(f, backend=name)(x).tolist() for name in ["eager", "aot_eager", "aot_eager_decomp_partition", "tvm", "cudagraphs"]])
