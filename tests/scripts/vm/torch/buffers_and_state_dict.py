# register_buffer puts the buffer in the state dict; load_state_dict copies, and a missing key is an error.
# expect: ['scale', 'lin.weight', 'lin.bias'] ['scale']
# expect: True tensor([3., 3.])
# expect: Error(s) in loading state_dict for Norm:
import torch
import torch.nn as nn
class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.register_buffer('scale', torch.full((2,), 3.0))
a = Norm()
b = Norm()
print(list(a.state_dict().keys()), [n for n, _ in a.named_buffers()])
b.load_state_dict(a.state_dict())
print(torch.equal(a.lin.weight, b.lin.weight), b.scale)
try:
    b.load_state_dict({})
except RuntimeError as e:
    print(str(e).splitlines()[0])
