# Under fullgraph=True a graph break is an error: Unsupported, with the break's reason and the user code.
# expect: Failed to trace builtin operator
# expect: True
import torch


@torch.compile(fullgraph=True)
def f(x):
    print("no")
    return x


try:
    f(torch.ones(1))
except torch._dynamo.exc.Unsupported as e:
    message = str(e)
    print(message.split("\n")[0])
    print('from user code:\n  File "capture/breaks/fullgraph_raises_unsupported_with_the_reason.py", line 9, in f\n    print("no")' in message)
