# mode='reduce-overhead' on the CPU: no CUDA graphs (Inductor's reason is in the output code), linear stays a
# library matmul plus bias (no cuBLASLt epilogue), and every call returns an output of its own.
# expect: True 0 0
# expect code: skipping cudagraphs due to cpu device (arg
# expect code: extern_kernels.torch.matmul(
# expect no code: cuBLASLt
from _lib.reduce_overhead import compiled_against_eager

worst, bad, aliased = compiled_against_eager('cpu')
print(worst < 1e-5, bad, aliased)
