# Graph breaks below the compiled frame: a break inside a helper called twice (the helper's own frames resume
# after it), a break in a loop body, a break inside a nested helper with live locals of both frames, values
# computed before the break used after it, and a list the caller passed in that is appended to across breaks.
import torch


def helper(x, k):
    y = x * k
    torch._dynamo.graph_break()
    return y + k


def deeper(x):
    a = x.sin()
    b = helper(a, 3)
    return a + b


def calls_helper(x):
    first = helper(x, 2)
    second = deeper(first)
    return first * second


def loop_break(x, log):
    acc = x
    for i in range(3):
        acc = acc * 2 + i
        log.append(i)
        if i == 1:
            torch._dynamo.graph_break()
    return acc + len(log)


opt_calls = torch.compile(calls_helper, backend="eager")
opt_loop = torch.compile(loop_break, backend="eager")


def main(device):
    x = torch.linspace(-1.0, 1.0, 4, device=device)
    log = []
    out = [opt_calls(x), opt_calls(x + 1), opt_loop(x, log), opt_loop(x, log)]
    out.append(torch.tensor(log, device=device, dtype=torch.float32))
    return out
