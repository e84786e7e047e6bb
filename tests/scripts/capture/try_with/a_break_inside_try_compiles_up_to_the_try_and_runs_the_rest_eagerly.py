# A graph break inside a try block has no resume point (Dynamo 3.11+ compiles no partial graph there): Dynamo goes
# back to its last checkpoint (here the `try:` line, with `y = x + 1` in the graph), compiles the graph up to it and
# runs the rest of the frame eagerly, so the handler sees every exception the eager code raises. The break stays
# counted as unimplemented, not as a graph break.
# expect: in try
# expect: [13.0, 13.0]
# expect: in try
# expect: [13.0, 13.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
# expect recompiles: 0
# expect log: Encountered graph break that we cannot resume from. Compiling up to the previous resumable state
# expect graph_code: y = l_x_ + 1
# expect no log: Failed to handle graph break gracefully
import torch


@torch.compile(backend="eager")
def f(x):
    y = x + 1
    try:
        print("in try")
        y = y * 2
        d = {}
        v = d['missing']
        y = y + 100
    except KeyError:
        y = y - 1
    finally:
        y = y + 10
    return y


print(f(torch.ones(2)).tolist())
# The cached graph runs, then the rest of the frame again eagerly: no second compile, no graph break counted.
print(f(torch.ones(2)).tolist())
