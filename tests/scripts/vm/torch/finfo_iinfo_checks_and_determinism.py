# torch.finfo / torch.iinfo give a dtype's limits, print as PyTorch prints them and refuse the other kind of dtype;
# torch._check and its siblings raise their error class with the message or PyTorch's default text;
# torch.use_deterministic_algorithms is remembered.
# expect: 1.1920928955078125e-07 65504.0 32 0.0078125 2.2250738585072014e-308
# expect: 2147483647 -128 255 64
# expect: finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)
# expect: iinfo(min=-32768, max=32767, dtype=int16)
# expect: True False float32
# expect: torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'
# expect: torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'
# expect: torch.bool is not supported by torch.iinfo
# expect: Expected cond to be True, but got False. (Could this error message be improved? If so, please report an enhancement request to PyTorch.)
# expect: ValueError one is not above two
# expect: TypeError message must be a callable
# expect: False False
# expect: True True
import torch

print(torch.finfo(torch.float32).eps, torch.finfo(torch.float16).max, torch.finfo().bits, torch.finfo(torch.bfloat16).eps,
      torch.finfo(torch.float64).tiny)
print(torch.iinfo(torch.int32).max, torch.iinfo(torch.int8).min, torch.iinfo(torch.uint8).max, torch.iinfo(torch.int64).bits)
print(torch.finfo(torch.float32))
print(torch.iinfo(torch.int16))
print(torch.finfo(torch.float32) == torch.finfo(torch.float32), torch.finfo(torch.float32) == torch.finfo(torch.float64),
      torch.finfo(torch.float32).dtype)
for dtype, info in [(torch.float32, torch.iinfo), (torch.int32, torch.finfo), (torch.bool, torch.iinfo)]:
    try:
        info(dtype)
    except TypeError as e:
        print(e)
torch._check(True)
try:
    torch._check(False)
except RuntimeError as e:
    print(e)
for cond, message in [(1 > 2, lambda: "one is not above two"), (False, "not callable")]:
    try:
        torch._check_value(cond, message)
    except Exception as e:
        print(type(e).__name__, e)
print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
torch.use_deterministic_algorithms(True, warn_only=True)
print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
