# pop/insert/remove/index/count/reverse/sort/copy and slice stores and deletions are traced (Dynamo's ListVariable):
# on a list the frame makes, and on a list of tensors passed in, whose new contents the caller sees after the graph.
# expect: [8.0, 9.0, 10.0] [3, 9, 5, 7, 7, 7, 1]
# expect: [4.0, 7.0, 10.0] [[30.0], [2.0], [2.0]] True
# expect graph_breaks: 0
import torch


def own_list(x):
    xs = [3, 1, 4, 1, 5]
    xs.insert(1, 9)
    popped = xs.pop()
    xs.remove(1)
    where = xs.index(4)
    ones = xs.count(1)
    xs[2:3] = [5, 7, 7, 7]
    del xs[-1:]
    xs.append(1)
    copy = xs.copy()
    copy.reverse()
    copy.sort(key=lambda v: -v)
    return x + popped + where + ones * 0 - copy[0] + 9, xs


def argument_list(x, items):
    first = items.pop(0)
    items.insert(0, first * 2)
    items.reverse()
    items[0:1] = [items[0] * 10]
    return x * len(items) + first, items


opt_own = torch.compile(own_list, backend="eager")
opt_arg = torch.compile(argument_list, backend="eager")
y, xs = opt_own(torch.tensor([1.0, 2.0, 3.0]))
print(y.tolist(), xs)
items = [torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([3.0])]
y, out = opt_arg(torch.tensor([1.0, 2.0, 3.0]), items)
print(y.tolist(), [t.tolist() for t in items], out is items)
