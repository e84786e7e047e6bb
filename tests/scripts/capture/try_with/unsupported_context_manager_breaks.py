# `with` on a context manager other than no_grad/enable_grad stops the trace with Dynamo's message (gb0142); there is
# no resume point inside the block, so the frame runs eagerly, as real torch 2.11 does ("Failed to handle graph break
# gracefully", no graph_break counted), and the manager is entered and exited once per call.
# expect: [4.0, 4.0]
# expect: [4.0, 4.0]
# expect: 2 2
# expect graph_breaks: 0
# expect log: Failed to handle graph break gracefully. Skipping the function and falling back to eager.
# expect log: Unsupported context manager
# expect log: Explanation: Dynamo does not know how to enter a `Ctx` context manager.
# expect log: Developer debug context: Attempted SETUP_WITH/BEFORE_WITH/LOAD_SPECIAL on LazyVariableTracker(realized: UserDefinedObjectVariable(Ctx))
# expect log: gb/gb0142.html
import torch


class Ctx:
    def __init__(self):
        self.entered = 0
        self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, a, b, c):
        self.exited += 1
        return False


@torch.compile
def f(x, c):
    y = x + 1
    with c:
        y = y * 2
    return y


c = Ctx()
print(f(torch.ones(2), c).tolist())
print(f(torch.ones(2), c).tolist())
print(c.entered, c.exited)
