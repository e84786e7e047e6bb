# Generators that do not run to their end: close() runs the generator's finally (GeneratorExit), a for loop left
# by break drops its generator (whose finally then runs), and send() into a running generator.
import torch

log = []


def numbers(x):
    try:
        yield x + 1
        yield x + 2
        yield x + 3
    finally:
        log.append("closed")


def first_then_close(x):
    g = numbers(x)
    v = next(g)
    g.close()
    return v * 2


def break_early(x):
    total = x
    for v in numbers(x):
        total = total + v
        break
    return total


def accumulator():
    total = 0
    while True:
        v = yield total
        total = total + v


def send_values(x):
    g = accumulator()
    next(g)
    g.send(x)
    return g.send(x * 2)


opt_close = torch.compile(first_then_close, backend="eager")
opt_break = torch.compile(break_early, backend="eager")
opt_send = torch.compile(send_values, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    a = opt_close(x)
    after_close = len(log)
    b = opt_break(x)
    after_break = len(log)
    c = opt_send(x)
    return [a, b, c, torch.tensor([after_close, after_break, len(log)], device=device)]
