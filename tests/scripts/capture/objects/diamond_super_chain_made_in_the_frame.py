# A diamond of plain classes constructed inside the compiled function: the cooperative super().__init__ chain
# runs each __init__ once in MRO order (Top, Right, Left, Bottom), super().scale() continues along the MRO of the
# instance's type (Left's super() reaches Right, not Top), and isinstance over both bases folds to a constant.
# All of it is traced: one graph, no break. scale: ((x * 2 + 3) * 5) + 1 with x = 1 gives 26.
# expect: [26.0, 26.0] 4 True
# expect: True
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


class Top:
    def __init__(self, steps):
        steps.append("Top")
        self.k = 2

    def scale(self, x):
        return x * self.k


class Left(Top):
    def __init__(self, steps):
        super().__init__(steps)
        steps.append("Left")

    def scale(self, x):
        return super().scale(x) * 5


class Right(Top):
    def __init__(self, steps):
        super(Right, self).__init__(steps)
        steps.append("Right")

    def scale(self, x):
        return super().scale(x) + 3


class Bottom(Left, Right):
    def __init__(self, steps):
        super().__init__(steps)
        steps.append("Bottom")

    def scale(self, x):
        return super().scale(x) + 1


def f(x):
    steps = []
    b = Bottom(steps)
    y = b.scale(x)
    if isinstance(b, Right) and isinstance(b, Left) and steps == ["Top", "Right", "Left", "Bottom"]:
        y = y + 0
    else:
        y = y - 1000
    return y, len(steps), issubclass(Bottom, Top)


eager = f(torch.ones(2))
out = torch.compile(f, backend="eager")(torch.ones(2))
print(out[0].tolist(), out[1], out[2])
print(torch.equal(out[0], eager[0]) and out[1:] == eager[1:])
