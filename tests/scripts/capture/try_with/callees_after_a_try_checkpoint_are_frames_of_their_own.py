# A break deep inside a call made in a try block (a helper whose exception class calls super().__init__, gb0006):
# Dynamo compiles `top` up to its last checkpoint (before the loop: inside it the iterator is on the stack) and
# runs the rest of `top` eagerly, where `middle` is compiled as a frame of its own, breaking and resuming there.
# expect: [9.0, 18.0]
# expect compiles: 0/0 top, 1/0 middle, 2/0 torch_dynamo_resume_in_middle_at_21
# expect graph_breaks: 1
# expect log: [0/0] [__graph_breaks] Graph Break Reason: Encountered graph break that we cannot resume from
# expect log: [1/0] [__graph_breaks] Graph Break Reason: Encountered graph break when attempting to trace CALL
import torch


class Failure(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def middle(x, fail):
    if fail:
        x = x * 1
    e = Failure(3)
    return x * 2 + e.code


def top(x):
    acc = torch.zeros_like(x)
    for fail in (True,):
        try:
            acc = acc + middle(x, fail)
        except Failure:
            acc = acc - 1
    return acc + x


print(torch.compile(top, backend="eager")(torch.tensor([2.0, 5.0])).tolist())
