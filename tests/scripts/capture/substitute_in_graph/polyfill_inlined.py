# torch.compiler.substitute_in_graph(original) registers a polyfill that the trace inlines wherever the program
# calls the original or the decorated name, while eager calls still run the original; registering a second polyfill
# for the same function is refused with Dynamo's message.
# expect: 9
# expect: True
# expect: [0.0, 1.0, 4.0]
# expect: traced the polyfill
# expect error: Duplicate polyfill handlers for
# expect unique_graphs: 1
# expect graph_breaks: 0
import torch

calls = []


def slow_square(v):
    return v * v


@torch.compiler.substitute_in_graph(slow_square)
def square(v):
    calls.append("polyfill")
    return v * v


print(square(3))
print(calls == [])


@torch.compile(fullgraph=True)
def f(x):
    return slow_square(x)


print(f(torch.arange(3.0)).tolist())
print("traced the polyfill" if calls == ["polyfill"] else calls)


@torch.compiler.substitute_in_graph(slow_square)
def again(v):
    return v * v
