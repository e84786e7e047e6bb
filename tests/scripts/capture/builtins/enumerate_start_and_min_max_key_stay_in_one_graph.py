# enumerate(xs, start=k) counts from k, and min/max with a key function (a lambda or len) call it per item
# through the trace, returning the first best item: one graph, no break (Dynamo inlines the key).
# expect: [26.0, 33.0]
# expect graph_breaks: 0
# expect unique_graphs: 1
import torch


@torch.compile(backend="eager")
def f(x):
    words = ["bb", "a", "dddd", "ccc", "zzzz"]
    longest = max(words, key=len)
    shortest = min(words, key=lambda w: len(w))
    acc = x
    for i, v in enumerate([3, 1], start=5):
        acc = acc + v * i
    return acc + len(longest) * (1 if longest == "dddd" else 100) + len(shortest)


print(f(torch.tensor([0.0, 7.0])).tolist())
