# nn.ParameterDict and nn.ParameterList as PyTorch's: entries are the module's parameters under their key or index
# (a plain tensor is wrapped as a Parameter), a plain dict is taken in sorted key order, an OrderedDict or pairs in
# their own order, and the module prints its entries.
# expect: ['a', 'b', 'c'] 3 True False
# expect: [('a', 'Parameter', True), ('b', 'Parameter', True), ('c', 'Parameter', True)]
# expect: ['z', 'y'] [2.0, 1.0]
# expect: ['d.a', 'd.b', 'd.c', 'l.0', 'l.1', 'l.2']
# expect: 3 [2, 3, 5] 5 2 Parameter
# expect: ParameterDict(
# expect:     (a): Parameter containing: [torch.FloatTensor of size 3]
# expect:     (b): Parameter containing: [torch.FloatTensor of size 2]
# expect:     (c): Parameter containing: [torch.FloatTensor of size 1]
# expect: )
# expect error: TypeError: Index given to ParameterDict cannot be used as a key as it is not a string (type is 'int')
from collections import OrderedDict

import torch
import torch.nn as nn

d = nn.ParameterDict({"b": nn.Parameter(torch.ones(2)), "a": torch.zeros(3)})
d["c"] = torch.ones(1)
print(list(d.keys()), len(d), "a" in d, "z" in d)
print([(k, type(v).__name__, v.requires_grad) for k, v in d.items()])
ordered = nn.ParameterDict(OrderedDict([("z", torch.full((1,), 2.0)), ("y", torch.ones(1))]))
print(list(ordered), [v.item() for v in ordered.values()])
l = nn.ParameterList([torch.ones(2), nn.Parameter(torch.zeros(3))])
l.append(torch.ones(5))


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = d
        self.l = l


print([name for name, _ in Holder().named_parameters()])
print(len(l), [p.shape[0] for p in l], l[-1].shape[0], len(l[1:]), type(l[0]).__name__)
print(d)
d[0] = torch.ones(1)
