# torch.compile with trace.enabled and trace.graph_diagram: the debug folder Inductor writes in the working directory
# (read by tests/unit/engine/inductor/graph/trace_debug_folder_test.cpp, which runs it in a folder of its own).
import torch

def f(x):
    return torch.sin(x) * 2

g = torch.compile(f, options={'trace.enabled': True, 'trace.graph_diagram': True})

def main():
    x = torch.arange(8.0)
    return [g(x), f(x)]
