# A store through a user __setattr__ is not replayed: it breaks the graph. __setattr__, called by the breaking
# instruction, holds no tensor and reads no torch module, so it runs eagerly uncompiled (Dynamo's
# has_tensor_in_frame) and its print breaks nothing.
# expect: set y
# expect graph_breaks: 1
# expect log: Unsupported attribute assignment
import torch


class Logged:
    def __setattr__(self, name, value):
        print("set", name)


@torch.compile
def f(x, o):
    o.y = 1
    return x + 1


f(torch.ones(2), Logged())
