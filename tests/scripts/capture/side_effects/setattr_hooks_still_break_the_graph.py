# A store through a user __setattr__ is not replayed: it breaks the graph, and __setattr__, called by the
# breaking instruction, is a frame of its own whose print breaks again.
# expect: set y
# expect graph_breaks: 2
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
