# F.conv1d / F.conv2d (padding, stride, dilation, groups), F.avg_pool2d (padding counted or not, ceil_mode),
# F.batch_norm (training updates the running statistics with the unbiased variance), F.pad, and the modules over
# them (nn.Conv2d's parameters and repr, nn.BatchNorm2d, nn.AvgPool2d, nn.Softmax).
# expect: torch.Size([1, 3, 3, 3]) 294.0
# expect: [[[-1.0, -1.0, -1.0, -1.0]]] [[[2.0, 4.0, 6.0, 8.0]]] torch.Size([1, 4, 3, 3]) 9.0
# expect: [[[[2.5, 4.5], [10.5, 12.5]]]] 2.5 1.1111 [6.5, 24.0]
# expect: [[-1.0, -1.0], [1.0, 1.0]] [0.2, 0.4] [1.1, 1.7]
# expect: [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 0.0]]
# expect: Conv2d(2, 3, kernel_size=(3, 3), stride=(1, 1)) [3, 2, 3, 3] [3] Softmax(dim=1) [[0.5, 0.5]]
# expect: torch.Size([2, 3, 2, 2]) 1
# expect: [[[1.0, 2.0, 2.0, 2.0, 1.0]]] [[[6.0, 10.0]]] [[[[0.25, 0.25], [0.25, 0.25]]]]
import torch
import torch.nn as nn
import torch.nn.functional as F

out = F.conv2d(torch.ones(1, 2, 5, 5), torch.ones(3, 2, 3, 3), stride=2, padding=1)
print(out.shape, out.sum().item())
print(F.conv1d(torch.arange(5.0).view(1, 1, 5), torch.tensor([[[1.0, -1.0]]])).tolist(),
      F.conv1d(torch.arange(6.0).view(1, 1, 6), torch.ones(1, 1, 2), dilation=2).tolist(),
      F.conv2d(torch.ones(1, 4, 5, 5), torch.ones(4, 1, 3, 3), groups=4).shape, F.conv2d(torch.ones(1, 4, 5, 5), torch.ones(4, 1, 3, 3), groups=4)[0, 0, 0, 0].item())
grid = torch.arange(16.0).view(1, 1, 4, 4)
print(F.avg_pool2d(grid, 2).tolist(), F.avg_pool2d(grid, 3, stride=1, padding=1, count_include_pad=False)[0, 0, 0, 0].item(),
      round(F.avg_pool2d(grid, 3, stride=1, padding=1)[0, 0, 0, 0].item(), 4),
      [F.avg_pool2d(torch.arange(25.0).view(1, 1, 5, 5), 2, ceil_mode=True)[0, 0, i, 2].item() for i in (0, 2)])
mean, var = torch.zeros(2), torch.ones(2)
normed = F.batch_norm(torch.tensor([[1.0, 2.0], [3.0, 6.0]]), mean, var, training=True)
print([[round(v, 4) for v in row] for row in normed.tolist()], [round(v, 4) for v in mean.tolist()], [round(v, 4) for v in var.tolist()])
print(F.pad(torch.tensor([[1.0, 2.0]]), (1, 1, 1, 0)).tolist())
conv = nn.Conv2d(2, 3, 3)
print(conv, list(conv.weight.shape), list(conv.bias.shape), nn.Softmax(dim=1), nn.Softmax(dim=1)(torch.zeros(1, 2)).tolist())
bn = nn.BatchNorm2d(3)
pooled = nn.AvgPool2d(2)(bn(conv(torch.randn(2, 2, 6, 6))))
print(pooled.shape, bn.num_batches_tracked.item())
signal = torch.arange(5.0).view(1, 1, 5).requires_grad_()
kernel = torch.ones(1, 1, 2, requires_grad=True)
F.conv1d(signal, kernel).sum().backward()
image = torch.ones(1, 1, 2, 2, requires_grad=True)
F.avg_pool2d(image, 2).sum().backward()
print(signal.grad.tolist(), kernel.grad.tolist(), image.grad.tolist())
