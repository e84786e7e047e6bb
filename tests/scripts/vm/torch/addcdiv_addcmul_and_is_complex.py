# addcdiv and addcmul as functions and methods; addcdiv refuses integer division with PyTorch's error.
# expect: tensor([8.5000, 4.5000]) tensor([ 7., 34.]) False False
# expect error: RuntimeError: Integer division with addcdiv is no longer supported
import torch
a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
c = torch.tensor([2.0, 8.0])
print(torch.addcdiv(a, b, c, value=5.0), a.addcmul(b, c), a.is_complex(), torch.is_complex(a))
x = torch.tensor([1, 2])
torch.addcdiv(x, x, x)
