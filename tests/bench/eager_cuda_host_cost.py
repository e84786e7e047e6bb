# Host cost of eager CUDA ops: one program for CPython + PyTorch and `cwb run`, timing single ops on tiny CUDA
# tensors in a loop with one synchronize at the end, so the host's launch path (op dispatch, kernel lookup,
# cuLaunchKernel), not the GPU, sets the pace. Prints one "name microseconds" line per case (best of 5 runs).
#   python3 tests/bench/eager_cuda_host_cost.py        cwb run tests/bench/eager_cuda_host_cost.py
# (CWB_EAGER_KERNEL_MEMO=0 gives cwb's launches without the per-spec kernel memo, for comparison.)
import time
import torch
import torch.nn.functional as F


def best_per_iteration(body, iterations, repeats):
    best = 1.0e30
    for r in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        body(iterations)
        torch.cuda.synchronize()
        elapsed = (time.perf_counter() - start) / iterations
        if elapsed < best:
            best = elapsed
    return best * 1.0e6


a = torch.randn([64], device="cuda")
b = torch.randn([64], device="cuda")
m = torch.randn([64, 64], device="cuda")
half = torch.randn([64, 64], device="cuda").to(torch.bfloat16)
index = torch.tensor([3, 1, 4, 1, 5], device="cuda")


def add(n):
    for k in range(n):
        y = a + b


def mul_scalar(n):
    for k in range(n):
        y = a * 2.0


def relu(n):
    for k in range(n):
        y = torch.relu(a)


def gelu(n):
    for k in range(n):
        y = F.gelu(m)


def clamp(n):
    for k in range(n):
        y = torch.clamp(a, -0.5, 0.5)


def cast_bf16(n):
    for k in range(n):
        y = m.to(torch.bfloat16)


def sum_rows(n):
    for k in range(n):
        y = m.sum(dim=1)


def softmax(n):
    for k in range(n):
        y = torch.softmax(m, dim=-1)


def gather(n):
    for k in range(n):
        y = a[index]


cases = [
    ("add", add),
    ("mul_scalar", mul_scalar),
    ("relu", relu),
    ("gelu_64x64", gelu),
    ("clamp", clamp),
    ("cast_bf16_64x64", cast_bf16),
    ("sum_dim1_64x64", sum_rows),
    ("softmax_64x64", softmax),
    ("index_gather", gather),
]
with torch.no_grad():
    for name, body in cases:
        body(200)
        print(name, round(best_per_iteration(body, 2000, 5), 2))
