# helper, called by the instruction f breaks at, is compiled as a frame of its own and breaks again; the user
# stack of the first break names the inlined frame, and the graph breaks at the call in f.
# expect: inside
# expect: 9.0
# expect compiles: 0/0 f, 1/0 helper, 2/0 torch_dynamo_resume_in_helper_at_14, 3/0 torch_dynamo_resume_in_f_at_21
# expect log: [0/0] [__graph_breaks] Graph break in user code at capture/breaks/a_break_inside_an_inlined_helper_restarts_at_the_call.py:14
# expect log: [0/0] [__graph_breaks]   File "capture/breaks/a_break_inside_an_inlined_helper_restarts_at_the_call.py", line 21, in f
# expect log: [0/0] [__graph_breaks]   File "capture/breaks/a_break_inside_an_inlined_helper_restarts_at_the_call.py", line 14, in helper
# expect log: [1/0] [__graph_breaks] Graph break (user stack suppressed due to duplicate graph break) in user code at capture/breaks/a_break_inside_an_inlined_helper_restarts_at_the_call.py:14
import torch


def helper(y):
    print("inside")
    return y * 3.0


@torch.compile
def f(x):
    a = torch.exp(x)
    b = helper(a)
    return b.sum()


print(f(torch.zeros(3)).item())
