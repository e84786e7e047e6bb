# `with torch.cpu.amp.autocast():` in a compiled function is captured as torch.autocast is (Dynamo's
# AutocastModeVariable takes the deprecated class too), with its defaults as the enter node's arguments.
import torch


@torch.compile(backend="eager")
def product(a, b):
    with torch.cpu.amp.autocast():
        return a @ b


x = torch.randn(4, 4)
w = torch.randn(4, 4)
# expect: torch.bfloat16 False
print(product(x, w).dtype, torch.is_autocast_enabled("cpu"))
# expect graph_breaks: 0
# expect graph_code: _enter_autocast = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, True)
