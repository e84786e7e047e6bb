# Eager-mode overhead benchmark: one program that runs unchanged under CPython + PyTorch and under `cwb run`,
# timing the interpreter loop, single tiny-tensor ops (per-op overhead) and a small MLP forward.
# Prints one "name microseconds" line per case; tests/bench/eager_overhead.sh runs both and tabulates.
import time
import torch
import torch.nn as nn


def best_per_iteration(body, iterations, repeats):
    best = 1.0e30
    for r in range(repeats):
        start = time.perf_counter()
        body(iterations)
        elapsed = (time.perf_counter() - start) / iterations
        if elapsed < best:
            best = elapsed
    return best * 1.0e6


def empty_loop(n):
    total = 0
    for k in range(n):
        total = total + k
    return total


tiny = torch.ones(1)
small = torch.ones(64, 64)


def tiny_add(n):
    for k in range(n):
        y = tiny + tiny


def tiny_mul_scalar(n):
    for k in range(n):
        y = tiny * 2.0


def tiny_relu(n):
    for k in range(n):
        y = torch.relu(tiny)


def tiny_sum(n):
    for k in range(n):
        y = tiny.sum()


def tiny_view(n):
    for k in range(n):
        y = small.view(4096)


def small_add(n):
    for k in range(n):
        y = small + small


activations = torch.randn(64, 512)
weight = torch.randn(512, 512)
bias = torch.randn(512)


def gelu_64x512(n):
    for k in range(n):
        y = torch.nn.functional.gelu(activations)


def tanh_64x512(n):
    for k in range(n):
        y = torch.tanh(activations)


def linear_64x512x512(n):
    for k in range(n):
        y = torch.nn.functional.linear(activations, weight, bias)


class MLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(256, width)
        self.fc2 = nn.Linear(width, width)
        self.fc3 = nn.Linear(width, 10)
        self.act = nn.GELU()

    def forward(self, x):
        return self.fc3(self.act(self.fc2(self.act(self.fc1(x)))))


torch.manual_seed(0)
mlp = MLP(512)
batch1 = torch.randn(1, 256)
batch64 = torch.randn(64, 256)


def mlp_batch1(n):
    with torch.no_grad():
        for k in range(n):
            y = mlp(batch1)


def mlp_batch64(n):
    with torch.no_grad():
        for k in range(n):
            y = mlp(batch64)


cases = [
    ("loop_iteration", empty_loop, 200000),
    ("tiny_add", tiny_add, 20000),
    ("tiny_mul_scalar", tiny_mul_scalar, 20000),
    ("tiny_relu", tiny_relu, 20000),
    ("tiny_sum", tiny_sum, 20000),
    ("tensor_view", tiny_view, 20000),
    ("add_64x64", small_add, 20000),
    ("gelu_64x512", gelu_64x512, 1000),
    ("tanh_64x512", tanh_64x512, 1000),
    ("linear_64x512x512", linear_64x512x512, 500),
    ("mlp_forward_batch1", mlp_batch1, 500),
    ("mlp_forward_batch64", mlp_batch64, 100),
]
for name, body, iterations in cases:
    body(iterations // 10)
    print(name, round(best_per_iteration(body, iterations, 5), 3))
