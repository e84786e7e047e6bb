# A compiled function whose input requires grad, with the inductor installed and AOT Autograd not: the graph runs on
# the eager runtime and its output code says why (read by tests/unit/engine/inductor/graph/fusion_test.cpp).
import torch

@torch.compile
def f(w, x):
    return (w * x).sum()

def main():
    w = torch.ones(4, requires_grad=True)
    loss = f(w, torch.arange(4.0))
    loss.backward()
    return w.grad
