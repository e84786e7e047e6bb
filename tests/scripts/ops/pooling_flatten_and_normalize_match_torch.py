# F.max_pool1d/2d (padding with -inf, stride, dilation, ceil_mode; the gradient goes to each window's first max),
# F.adaptive_avg_pool1d/2d, F.normalize and nn.Flatten / nn.MaxPool2d / nn.AdaptiveAvgPool2d, eager and compiled.
# Values worked out by hand from PyTorch's definitions.
# expect: [[5.0, 5.0], [2.0, 7.0]]
# expect: [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]
# expect: [[5.0, 5.0], [4.0, 7.0]]
# expect: [[-3.0, -1.0, -1.0, -2.0]]
# expect: [[2.0, 4.0, 5.0]] [[2.0, 4.0]]
# expect: [[2.0, 9.0, 3.0]]
# expect: [1.0, 0.0]
# expect: [[1.5, 3.0, 4.5]]
# expect: [[0.6, 0.8], [0.0, 0.0]]
# expect: torch.Size([2, 12]) torch.Size([2, 3, 4])
# expect: [[7.0]] [[2.6875]]
# expect: True
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([[[[1., 5., 2., 0.], [3., 4., 5., 1.], [0., 2., 6., 7.], [1., 1., 2., 3.]]]], requires_grad=True)
y = F.max_pool2d(x, 2)
print(y[0, 0].tolist())
y.sum().backward()
print(x.grad[0, 0].tolist())
print(F.max_pool2d(x, 3, stride=2, padding=1)[0, 0].tolist())
print(F.max_pool1d(torch.tensor([[-3., -1., -2.]]), 2, stride=1, padding=1).tolist())
five = torch.tensor([[1., 2., 3., 4., 5.]])
print(F.max_pool1d(five, 2, ceil_mode=True).tolist(), F.max_pool1d(five, 2).tolist())
print(F.max_pool1d(torch.tensor([[1., 9., 2., 8., 3.]]), 2, stride=1, dilation=2).tolist())
tie = torch.tensor([[2., 2.]], requires_grad=True)
F.max_pool1d(tie, 2).sum().backward()
print(tie.grad[0].tolist())
print(F.adaptive_avg_pool1d(five, 3).tolist())
print([[round(v, 4) for v in row] for row in F.normalize(torch.tensor([[3., 4.], [0., 0.]]), dim=1).tolist()])
flat = nn.Flatten()(torch.zeros(2, 3, 4))
print(flat.shape, nn.Unflatten(1, (3, 4))(flat).shape)
head = nn.Sequential(nn.MaxPool2d(4), nn.Flatten())
avg = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten())
print(head(x).tolist(), avg(x.detach()).tolist())
compiled = torch.compile(lambda t: (F.max_pool2d(t, 3, stride=2, padding=1, ceil_mode=True), F.adaptive_avg_pool2d(t, (3, 2))))
eager = (F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), F.adaptive_avg_pool2d(x, (3, 2)))
print(all(torch.equal(a, b) for a, b in zip(compiled(x.detach()), eager)))
