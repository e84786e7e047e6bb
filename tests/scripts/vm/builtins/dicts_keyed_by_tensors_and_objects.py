# A dict keyed by tensors (or instances, functions) finds a key by identity, as Python does (torch.Tensor.__hash__
# is id-based): an equal-valued other tensor is another key; deleting, popping, reordering (OrderedDict) and
# clearing keep every other key found, in insertion order; numbers and strings still compare by value.
# expect: 300 True True
# expect: False None 7
# expect: 299 [0, 1, 2, 4, 5] 3
# expect: 299 298 True
# expect: [1, 2, 0] 2 [1, 2] 9
# expect: 0 None 1 11
# expect: True 2 [5, 6]
# expect: a b 3
# expect: 1 one 2
from collections import OrderedDict

import torch

tensors = [torch.zeros(2) for _ in range(300)]  # equal values, distinct objects
d = {t: i for i, t in enumerate(tensors)}
print(len(d), all(d[t] == i for i, t in enumerate(tensors)), tensors[250] in d)

# An equal tensor that is another object is not a key.
d[tensors[7]] = 7
print(torch.zeros(2) in d, d.get(torch.zeros(2)), d[tensors[7]])

# Deleting shifts the later entries; every key is still found, in order.
del d[tensors[3]]
print(len(d), list(d.values())[:5], d.pop(tensors[4]) - 1)
d[tensors[4]] = 4  # re-inserted at the end
print(len(d), list(d.values()).index(4), all(d[t] == i for i, t in enumerate(tensors) if i != 3))

# OrderedDict reordering by tensor keys.
a, b, c = torch.ones(1), torch.ones(1), torch.ones(1)
od = OrderedDict([(a, 0), (b, 1), (c, 2)])
od.move_to_end(a)
key, value = od.popitem()
od[a] = 9
print(list(od.values())[:2] + [value], od[c], [od[b], od[c]], od[a])

# clear, then the same tensors as new keys; a copy is its own dict.
e = dict(d)
d.clear()
print(len(d), d.get(tensors[0]), e[tensors[1]], e.setdefault(tensors[11], -1))


# Instances and functions are keyed by identity too.
class Box:
    pass


def f():
    pass


boxes = [Box(), Box()]
objects = {boxes[0]: 5, f: 2, boxes[1]: 6}
print(Box() not in objects, objects[f], [objects[x] for x in boxes])

# Strings and numbers compare by value: 1, 1.0 and True are one key.
s = {"a": "a", "b": "b"}
s["c" * 1] = 3
print(s["a"], s[str("b")], s["c"])
n = {1: "one"}
n[1.0] = "one"
n[2] = 2
print(len(n) - 1, n[True], n[2.0])
