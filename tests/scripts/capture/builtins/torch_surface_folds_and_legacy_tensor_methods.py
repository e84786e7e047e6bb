# torch.onnx.is_in_onnx_export() and torch.autograd._is_checkpoint_valid() fold to constants, t.type() names the
# guarded dtype and converts back from that name, t.new(...) makes a tensor of t's dtype from sizes or data, and
# operator.length_hint reads a length: one graph, no break, as Dynamo traces them.
# expect: torch.HalfTensor torch.float16 [3, 2] torch.float32 [2.0, 3.0] 3 True
# expect graph_breaks: 0
# expect unique_graphs: 1
import operator

import torch


@torch.compile(backend="eager")
def f(x, y):
    if torch.onnx.is_in_onnx_export() or not torch.autograd._is_checkpoint_valid():
        return None
    half = x.to(torch.float16)
    name = half.type()
    converted = y.type(name)
    empty = y.new(x.shape)
    data = y.new([2.0, 3.0])
    return name, converted, empty, data, operator.length_hint((1, 2, 3)), isinstance(name, str)


name, converted, empty, data, n, is_str = f(torch.ones(3, 2), torch.ones(4))
print(name, converted.dtype, list(empty.shape), empty.dtype, data.tolist(), n, is_str)
