# torch.cuda.Event is made lazily (as in PyTorch), so its argument checks hold with or without a GPU.
# expect: <torch.cuda.Event uninitialized> Event
# expect: True
# expect: Both events must be created with argument 'enable_timing=True'.
# expect: Both events must be created with argument 'enable_timing=True'.
# expect: Both events must be recorded before calculating elapsed time.
# expect: Event.__new__() got an unexpected keyword argument 'bogus'
# expect: elapsed_time(): argument 'end_event' must be torch.cuda.Event
import torch

a = torch.cuda.Event(enable_timing=True)
b = torch.cuda.Event()
print(repr(a), type(a).__name__)
print(a.query())
a.synchronize()
for first, second in [(a, b), (b, a)]:
    try:
        first.elapsed_time(second)
    except RuntimeError as e:
        print(e)
try:
    a.elapsed_time(torch.cuda.Event(True))
except RuntimeError as e:
    print(e)
try:
    torch.cuda.Event(bogus=1)
except TypeError as e:
    print(e)
try:
    a.elapsed_time(3)
except TypeError as e:
    print(e)
