# Assignment expressions (PEP 572): in an if and a while condition, in a comprehension's condition (the name
# belongs to the enclosing function and keeps its last value), at module level, and inside a compiled function.
import torch


def evens_doubled(xs):
    out = [y for k in xs if (y := k * 2) % 4 == 0]
    return out, y


def count_up():
    total = 0
    while (total := total + 3) < 10:
        pass
    return total


def compiled(x):
    if (n := x.shape[0]) > 2:
        return x * n
    return x


print(evens_doubled([1, 2, 3, 4]))
# expect: ([4, 8], 8)
print(count_up())
# expect: 12
print((m := 5) + m)
# expect: 10
print(torch.compile(compiled, backend="eager")(torch.ones(3)).tolist())
# expect: [3.0, 3.0, 3.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
