# Dicts crossing the frame boundary: a dict of tensors as the argument (keys guarded, a new key recompiles),
# a dict mutated in the frame (the caller sees the change), dict.fromkeys, popitem, del, tuple and int keys,
# `{**a, **b}`, dict(zip(...)), equality of dicts, nested dicts, and iteration over sorted keys.
import torch


def weighted(inputs):
    total = 0
    for name in sorted(inputs):
        total = total + inputs[name] * len(name)
    return total


def mutate(state, x):
    state["count"] = state.get("count", 0) + 1
    state["last"] = x * 2
    if "drop" in state:
        del state["drop"]
    return x + state["count"]


def building(x):
    base = dict.fromkeys(["a", "b", "c"], 1)
    grid = {(i, j): i * 3 + j for i in range(2) for j in range(3)}
    by_int = {1: "one", 2: "two", 10: "ten"}
    merged = {**base, **{"b": 5, "d": 7}}
    zipped = dict(zip(["p", "q"], [x, x * 2]))
    nested = {"outer": {"inner": 3}}
    last_key, last_value = merged.popitem()
    acc = x * last_value + len(last_key)
    acc = acc + sum(grid.values()) + grid[(1, 2)] + len(by_int[10])
    acc = acc + zipped["q"] - zipped["p"] + nested["outer"]["inner"]
    if base == {"a": 1, "b": 1, "c": 1} and merged != base:
        acc = acc + 1000
    return acc


opt_weighted = torch.compile(weighted, backend="eager")
opt_mutate = torch.compile(mutate, backend="eager")
opt_building = torch.compile(building, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_weighted({"aa": x, "b": x + 1})]
    out.append(opt_weighted({"aa": x, "b": x + 2}))
    out.append(opt_weighted({"aa": x, "b": x + 1, "cccc": x * 3}))
    state = {"drop": 1}
    out.append(opt_mutate(state, x))
    out.append(opt_mutate(state, x + 1))
    out.append(state["last"])
    out.append(torch.tensor([state["count"], len(state)], device=device))
    out.append(opt_building(x))
    return out
