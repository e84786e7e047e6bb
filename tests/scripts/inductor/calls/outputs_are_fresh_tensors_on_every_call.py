# A compiled graph's outputs are new tensors on every call (its buffers are not handed out twice): changing one
# call's result in place leaves the next call's result, and the inputs, as eager leaves them.
# expect: True True True
# expect: True True True
# expect unique_graphs: 2
import torch


def pointwise(x):
    return x * 2 + 1


def with_matmul(x, w):
    return torch.relu(x @ w) + 1


x = torch.randn(4, 6)
w = torch.randn(6, 6)
for f, args in [(pointwise, [x]), (with_matmul, [x, w])]:
    cf = torch.compile(f)
    first = cf(*args)
    second = cf(*args)
    fresh = first.data_ptr() != second.data_ptr()
    first.add_(100)
    third = cf(*args)
    print(fresh, torch.equal(second, f(*args)), torch.equal(third, f(*args)))
