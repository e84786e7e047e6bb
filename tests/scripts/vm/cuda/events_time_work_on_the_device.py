# torch.cuda.Event times work on cwb's stream; the elapsed time of a reversed pair is negative, not an error
# (cuEventElapsedTime, as in PyTorch).
# requires: cuda
# expect: True True 0
# expect: float True True
# expect: no error
import torch

print(torch.cuda.is_available(), len(torch.cuda.get_device_name()) > 0, torch.cuda.current_device())
x = torch.randn([1 << 22], device="cuda")
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
start.record()
for i in range(10):
    x = x * 1.0001
end.record()
end.synchronize()
ms = start.elapsed_time(end)
print(type(ms).__name__, ms > 0.0, end.query())
torch.cuda.synchronize()
torch.cuda.synchronize(0)
torch.cuda.synchronize("cuda:0")
try:
    end.elapsed_time(start)
    print("no error")
except RuntimeError as e:
    print("error", e)
