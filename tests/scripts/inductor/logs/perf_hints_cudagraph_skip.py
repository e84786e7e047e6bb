# TORCH_LOGS=perf_hints: mode="reduce-overhead" on the CPU cannot use CUDA graphs, and Inductor says why through its
# perf hint log, as log_cudagraph_skip_and_bump_counter does.
# torch_logs: perf_hints
# expect: True
# expect log: [0/0] [__perf_hints] skipping cudagraphs due to cpu device (arg0_1)
import torch


def f(x):
    return torch.relu(x) + 1


x = torch.randn(8)
print(torch.equal(torch.compile(f, mode="reduce-overhead")(x), f(x)))
