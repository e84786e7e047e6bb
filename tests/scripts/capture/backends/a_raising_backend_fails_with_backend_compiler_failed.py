# An exception in the backend reaches the caller as BackendCompilerFailed naming the backend, and the compile
# is recorded as failed.
# expect: BackendCompilerFailed
# expect: backend='broken' raised:
# expect: RuntimeError: no thanks
# expect compiles: 0/0 f failed
import torch


def broken(gm, example_inputs):
    raise RuntimeError("no thanks")


@torch.compile(backend=broken)
def f(x):
    return torch.sin(x) + 1.0


try:
    f(torch.ones(2))
except Exception as e:
    print(type(e).__name__)
    print(str(e).split("\n")[0])
    print(str(e).split("\n")[1])
