# print is not traceable: f breaks before it and resumes after it, and again at torch._dynamo.graph_break().
# print runs once per call, in the VM (nothing runs twice), and the second call hits every cache.
# expect: middle 3
# expect: middle 3
# expect: [3.0, 3.0, 3.0, 3.0]
# expect compiles: 0/0 f, 1/0 torch_dynamo_resume_in_f_at_20, 2/0 torch_dynamo_resume_in_f_at_22
# expect unique_graphs: 3
# expect graph_breaks: 2
# expect log: [0/0] [__graph_breaks] Graph break in user code at capture/breaks/print_breaks_and_each_piece_resumes_once.py:20
# expect log: [0/0] [__graph_breaks] Failed to trace builtin operator
# expect log: `print` with argument types ['str', 'int']
# expect log: [1/0] [__graph_breaks] Graph break in user code at capture/breaks/print_breaks_and_each_piece_resumes_once.py:22
# expect log: [1/0] [__graph_breaks] Call to `torch._dynamo.graph_break()`
import torch


@torch.compile
def f(x):
    y = x + 1.0
    print("middle", 3)
    z = y * 2.0
    torch._dynamo.graph_break()
    return z - x


r1 = f(torch.ones(2))
r2 = f(torch.ones(2))
print(r1.tolist() + r2.tolist())
