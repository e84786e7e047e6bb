# map() and filter() are lazy: their function runs when the loop asks for the next item, so state the loop body
# changes is seen by the later calls (a filter whose predicate reads a counter the loop increments).
import torch

state = {"taken": 0}
seen = []


def below_two(i):
    return state["taken"] < 2


def shifted(i):
    return i + len(seen)


def accumulate(x):
    out = x
    for v in filter(below_two, [1, 2, 3, 4]):
        state["taken"] += 1
        out = out + v
    for w in map(shifted, [1, 2]):
        seen.append(w)
        out = out * w
    it = iter([5, 6, 7, 8])
    for a in it:
        if a == 6:
            break
    rest = list(it)
    return out + sum(rest)


opt_accumulate = torch.compile(accumulate, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_accumulate(x)]
    state["taken"] = 0
    seen.clear()
    out.append(opt_accumulate(x))
    state["taken"] = 1
    out.append(opt_accumulate(x))
    return out
