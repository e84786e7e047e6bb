# The types module: SimpleNamespace (keywords or a mapping, attribute writes, == by contents, repr), MethodType
# binding a function to an object, isinstance against FunctionType / LambdaType / MethodType / ModuleType /
# BuiltinFunctionType / GeneratorType, ModuleType(name), and a read-only MappingProxyType; a namespace and a bound
# method read inside compiled code; constructing a SimpleNamespace there breaks the graph, as in Dynamo.
# expect: namespace(a=1, b='x') True False
# expect: 2 {'k': 5}
# expect: 7
# expect: True True True True True True True
# expect: mod
# expect: 0.5 True 2 ['w', 'v']
# expect: 'mappingproxy' object does not support item assignment
# expect: [3.0, 5.0, 7.0] [5.0, 6.0, 7.0]
# expect graph_breaks: 1
import math
import types

import torch

ns = types.SimpleNamespace(a=1, b="x")
print(ns, ns == types.SimpleNamespace(b="x", a=1), ns == types.SimpleNamespace(a=2, b="x"))
other = types.SimpleNamespace({"k": 5})
other.n = 2
print(other.n, {"k": other.k})


class Counter:
    def __init__(self, start):
        self.start = start


def bump(self, by):
    return self.start + by


counter = Counter(4)
counter.bump = types.MethodType(bump, counter)
print(counter.bump(3))


def gen():
    yield 1


print(isinstance(bump, types.FunctionType), isinstance(lambda: 0, types.LambdaType), isinstance(counter.bump, types.MethodType),
      isinstance(math, types.ModuleType), isinstance(len, types.BuiltinFunctionType), isinstance(gen(), types.GeneratorType),
      types.MethodType is type(counter.bump))
print(types.ModuleType("mod").__name__)
proxy = types.MappingProxyType({"w": 0.5, "v": 4})
print(proxy["w"], "v" in proxy, len(proxy), list(proxy.keys()))
try:
    proxy["w"] = 1.0
except TypeError as e:
    print(e)

cfg = types.SimpleNamespace(scale=2.0, bias=1.0)


@torch.compile(backend="eager")
def f(x):
    local = types.SimpleNamespace(shift=x.sum())
    return x * cfg.scale + cfg.bias, counter.bump(x) + local.shift - 6


a, b = f(torch.tensor([1.0, 2.0, 3.0]))
print(a.tolist(), b.tolist())
