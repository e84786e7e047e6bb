# get/pop/setdefault/clear of dicts the compiled frame made, list.clear and `in` on a traced dict are traced (they
# change only the trace's own containers): one graph, no break. v = 3 + 2 + 3 + 4; tmp then holds a and c, xs v.
# expect: 15.0
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile(backend="eager")
def f(a, b):
    tmp = {"a": a + 1, "b": b + 2}
    v = tmp.pop("b") + tmp.get("a") + tmp.get("missing", 3) + tmp.pop("missing", 4)
    tmp.setdefault("c", v)
    consts = {"k": 1}
    consts.setdefault("k", 10)
    xs = [a, b]
    xs.clear()
    xs.append(v)
    if "c" in tmp and "missing" not in tmp and consts["k"] == 1:
        return tmp["c"] + len(tmp) + len(xs)
    return a


print(f(torch.ones(2), torch.ones(2))[0].item())
