# get() and `in` on a dict argument after the frame stored into it follow the trace's own stores (a stored key
# is present, a deleted one absent) and read the real dict for any other key, guarded by DICT_CONTAINS: no
# break, and the caller sees the stores and the delete.
# expect: [2.0, 3.0]
# expect: [3.0, 4.0]
# expect: ['count', 'last'] 2
# expect graph_breaks: 0
# expect recompiles: 1
import torch


@torch.compile(backend="eager")
def f(state, x):
    state["count"] = state.get("count", 0) + 1
    state["last"] = x * 2
    if "drop" in state:
        del state["drop"]
    if "last" in state:
        x = x + 0
    return x + state["count"]


state = {"drop": 1}
print(f(state, torch.tensor([1.0, 2.0])).tolist())
print(f(state, torch.tensor([1.0, 2.0])).tolist())
print(sorted(state), state["count"])
