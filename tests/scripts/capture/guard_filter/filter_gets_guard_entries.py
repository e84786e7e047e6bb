# A guard_filter_fn of the program's own gets one GuardFilterEntry per guard (name, guard_type, is_global, value,
# has_value) and returns one bool per entry; keeping every guard changes nothing, and a wrong-sized answer is refused.
# expect: True
# expect: True
# expect: [2.0, 2.0]
# expect error: guard_filter_fn must return a list of
import torch

seen = []
flag = True


def keep_all(entries):
    for e in entries:
        seen.append((e.name, e.guard_type, e.is_global, e.has_value))
    return [True for e in entries]


def f(x):
    if flag:
        return x * 2
    return x


cf = torch.compile(f, options={"guard_filter_fn": keep_all})
out = cf(torch.ones(2))
print(("L['x']", "TENSOR_MATCH", False, True) in seen)
print(("G['flag']", "ID_MATCH", True, True) in seen or ("G['flag']", "EQUALS_MATCH", True, True) in seen)
print(out.tolist())
torch.compile(f, options={"guard_filter_fn": lambda entries: [True]})(torch.ones(3, 3))
