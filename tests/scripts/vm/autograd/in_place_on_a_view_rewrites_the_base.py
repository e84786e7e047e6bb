# h[0] += h[1] updates a view of h in place: h's history becomes PyTorch's CopySlices. With h = 2x,
# L = sum(h * h) gives dL/dx0 = 4 h0 and dL/dx1 = 4 h0 + 4 h1 (h0 = [8, 12], h1 = [6, 8]).
# expect: tensor([[ 8., 12.],
# expect:         [ 6.,  8.]], grad_fn=<CopySlices>) CopySlices
# expect: tensor([[32., 48.],
# expect:         [56., 80.]])
# expect: RuntimeError: a view of a leaf Variable that requires grad is being used in an in-place operation.
import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
h = x * 2
h[0] += h[1]
print(h, type(h.grad_fn).__name__)
(h * h).sum().backward()
print(x.grad)
try:
    x[0].add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
