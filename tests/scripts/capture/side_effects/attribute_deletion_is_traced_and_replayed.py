# `del obj.attr` and delattr() under torch.compile, as Dynamo traces them (no graph break): on an object made in
# the frame the attribute goes at once (the returned object lacks it); on an object passed in the deletion is a
# side effect replayed after the graph on every call, cached calls included, and the trace sees it (hasattr is
# False after it); a class's own __delattr__ is inlined, reaching object's deletion through super() or
# object.__delattr__; an nn.Module's plain attribute is deleted the same way. Compiled equals eager throughout.
# expect: [3.0, 3.0] False
# expect: [3.0, 3.0] [3.0, 3.0] False False 1
# expect: ['a', 'b'] ['b'] False False
# expect: [2.0, 2.0] False
# expect graph_breaks: 0
# expect unique_graphs: 5
import torch


class Obj:
    def __init__(self):
        self.a = 1
        self.b = 2


class Hooked(Obj):
    def __init__(self):
        super().__init__()
        self.log = []

    def __delattr__(self, name):
        self.log.append(name)
        super().__delattr__(name)


class Direct(Hooked):
    def __delattr__(self, name):
        self.log.append(name)
        object.__delattr__(self, name)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = 1.0

    def forward(self, x):
        y = x + self.offset
        del self.offset
        return y + (1.0 if hasattr(self, "offset") else 0.0)


@torch.compile(backend="eager")
def made_here(x):
    o = Obj()
    del o.a
    return x + o.b, o


@torch.compile(backend="eager")
def passed_in(x, o):
    delattr(o, "a")
    return x + o.b + (10 if hasattr(o, "a") else 0)


@torch.compile(backend="eager")
def through_hook(x, o):
    del o.b
    return x * len(o.log)


x = torch.ones(2)
y, o = made_here(x)
print(y.tolist(), hasattr(o, "a"))
first, second = Obj(), Obj()
a = passed_in(x, first)
b = passed_in(x, second)
print(a.tolist(), b.tolist(), hasattr(first, "a"), hasattr(second, "a"), first.b - 1)
hooked, direct = Hooked(), Direct()
del hooked.a
through_hook(x, hooked)
through_hook(x, direct)
print(hooked.log, direct.log, hasattr(hooked, "b"), hasattr(direct, "b"))
net = Net()
print(torch.compile(net, backend="eager")(x).tolist(), hasattr(net, "offset"))
