# Tensors through the op registry: operators, reductions, indexing, in-place updates and devices, printed as
# PyTorch prints them.
# expect: tensor([ 9., 27.]) torch.Size([2]) torch.float32 3 2
# expect: 9.00 True tensor([2., 1., 0.]) tensor([[1., 2.],
# expect:         [4., 5.]])
# expect: [[11.0, 2.0, 3.0], [4.0, 5.0, 6.0]] 2
# expect: cpu True cpu device(type='cpu')
import torch
x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
y = (x * 2 + 1).sum(dim=1)
print(y, y.shape, y.dtype, x.shape[1], len(x))
print(f'{y[0].item():.2f}', isinstance(x, torch.Tensor), 2 - x[0], x[:, 1:])
x[0, 0] = 10.0
x += 1
print(x.tolist(), (x > 5).sum().item())
print(x.device, x.device == 'cpu', torch.device('cpu'), repr(x.device))
