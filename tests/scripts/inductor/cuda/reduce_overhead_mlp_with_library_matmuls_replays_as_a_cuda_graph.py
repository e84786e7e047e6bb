# mode='reduce-overhead' on a GPU: the second call records a CUDA graph of the kernels and the cuBLASLt matmuls
# (bias fused into their epilogue) and later calls replay it. Compiled equals eager with changing inputs, an eager
# tensor allocated between replays is never overwritten, and from the second call on the output is the
# recording's buffer, overwritten by the next replay (as in PyTorch).
# requires: cuda
# expect: True 0 4
# expect unique_graphs: 1
# expect no code: runs on the eager runtime
# expect code: cudagraphs: the second call records a CUDA graph of the kernels and library calls
# expect code: bias fused into the cuBLASLt matmul epilogue
from _lib.reduce_overhead import compiled_against_eager

worst, bad, aliased = compiled_against_eager('cuda')
print(worst < 1e-4, bad, aliased)
