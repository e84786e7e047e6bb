# torch.compile checks mode and options when it is called, in PyTorch's wording.
# expect: Unrecognized mode=fast, should be one of: default, reduce-overhead, max-autotune, max-autotune-no-cudagraphs
# expect: Either mode or options can be specified, but both can't be specified at the same time.
import torch

try:
    @torch.compile(mode='fast')
    def f(x):
        return x
except RuntimeError as e:
    print(e)
try:
    torch.compile(lambda x: x, mode='default', options={})
except RuntimeError as e:
    print(e)
