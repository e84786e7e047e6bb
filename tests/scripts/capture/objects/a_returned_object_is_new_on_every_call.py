# An object made in the compiled frame and returned is rebuilt per call with its traced attributes: each call
# gets its own object, with this call's values; subclass __init__ reaches the base through super().
# expect: 2.0 5.0 tag
# expect: 4.0 5.0 tag
# expect: False
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


class Base:
    def __init__(self, tag):
        self.tag = tag


class Box(Base):
    def __init__(self, value, tag):
        super().__init__(tag)
        self.value = value
        self.extra = 5.0


@torch.compile(backend="eager")
def wrap(x):
    return Box(x * 2, "tag")


a = wrap(torch.ones(1))
b = wrap(torch.full((1,), 2.0))
print(a.value.item(), a.extra, a.tag)
print(b.value.item(), b.extra, b.tag)
print(a is b)
