# One compile of f (an allow_in_graph helper, sin and an add) called from main: the events, stack, graph and guards a
# capture hands its sink (read by tests/unit/engine/capture/capture_events_test.cpp, which checks the line numbers).
import torch

def scale(t):
    return t * 3.0

scale = torch.compiler.allow_in_graph(scale)

@torch.compile
def f(x, y):
    return scale(x) + torch.sin(y)

def main():
    return f(torch.ones(2), torch.zeros(2))
