# Two steps of a compiled function whose backward runs inside it, with compiled_autograd on: the captured pass is a
# compile of its own in the trace (read by tests/unit/engine/aot/aot_trace_test.cpp).
import torch
import torch.nn as nn

def step(model, x):
    loss = torch.tanh(model(x)).pow(2).mean()
    loss.backward()
    return loss

def main():
    torch._dynamo.config.compiled_autograd = True
    torch.manual_seed(0)
    model = nn.Linear(6, 3)
    run = torch.compile(step)
    for i in range(2):
        model.zero_grad()
        loss = run(model, torch.randn(4, 6))
    return loss.detach()
