# A backend function gets the GraphModule and example inputs once, and what it returns runs every call.
# expect: graph():
# expect:     %l_x_ : torch.Tensor [num_users=1] = placeholder[target=L_x_]
# expect:     %relu : [num_users=1] = call_function[target=torch.relu](args = (%l_x_,), kwargs = {})
# expect:     %add : [num_users=1] = call_function[target=operator.add](args = (%relu, 1.0), kwargs = {})
# expect:     return (add,)
# expect:
# expect: 1 torch.Size([3])
# expect: 6.0 2
import torch

calls = []


def my_backend(gm, example_inputs):
    print(gm.graph)
    print(len(example_inputs), example_inputs[0].shape)

    def run(*args):
        calls.append(1)
        return gm.forward(*args)

    return run


@torch.compile(backend=my_backend)
def f(x):
    return torch.relu(x) + 1.0


x = torch.ones(3)
f(x)
y = f(x)
print(y.sum().item(), len(calls))
