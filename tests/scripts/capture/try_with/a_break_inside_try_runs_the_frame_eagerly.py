# A graph break inside a try block has no resume point (Dynamo 3.11+ compiles no partial graph there): the frame
# runs eagerly ("Failed to handle graph break gracefully"), so the handler sees every exception the eager code
# raises.
# expect: in try
# expect: [13.0, 13.0]
# expect graph_breaks: 0
# expect log: Failed to handle graph break gracefully
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
