# str() of an object made in the frame runs its __str__ in the trace, and an object with __call__ (made in the
# frame or passed in) is called through it; a class without __str__ gets object's repr. The strings fold, so
# only apply() leaves a graph.
# expect: ok
# expect: True
# expect: 6.0
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


class Named:
    def __str__(self):
        return "ok"


class Plain:
    pass


class Scale:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


@torch.compile(backend="eager", fullgraph=True)
def names(x):
    return str(Named()), str(Plain())


@torch.compile(backend="eager", fullgraph=True)
def apply(x, outer):
    return outer(Scale(2)(x))


text, plain = names(torch.ones(1))
print(text)
print(plain.split(" object at")[0].endswith("Plain"))
print(apply(torch.ones(1), Scale(3))[0].item())
