# Generators made in a compiled frame answer send(), throw() and close() inside the trace, as Dynamo's
# LocalGeneratorObjectVariable does: close() runs the finally (GeneratorExit at the paused yield), throw() is taken
# by the generator's except clause or leaves it for the caller's, send() past the end raises StopIteration with the
# return value; each function stays one graph, with eager's values.
# expect: [2.0, 4.0, 6.0] ['closed']
# expect: [11.0, 12.0, 13.0] ['closed', 'caught ValueError']
# expect: [-1.0, 0.0, 1.0] ['closed', 'caught ValueError', 'finally', 'outer KeyError']
# expect: [0.0, 1.0, 2.0] stop
# expect: [0.0, 0.0, 0.0] None
# expect graph_breaks: 0
# expect unique_graphs: 5
# expect recompiles: 0
import torch

log = []


def numbers(x):
    try:
        yield x + 1
        yield x + 2
    finally:
        log.append("closed")


def tolerant(x):
    while True:
        try:
            yield x
        except ValueError:
            log.append("caught ValueError")
            x = x + 10


def strict(x):
    try:
        yield x
        yield x * 2
    finally:
        log.append("finally")


def adder(x, steps):
    total = x
    for _ in range(steps):
        v = yield total
        total = total + v
    return total + 1


@torch.compile(backend="eager")
def close_it(x):
    g = numbers(x)
    v = next(g)
    g.close()
    return v * 2


@torch.compile(backend="eager")
def throw_caught(x):
    g = tolerant(x)
    next(g)
    return g.throw(ValueError)


@torch.compile(backend="eager")
def throw_out(x):
    g = strict(x)
    next(g)
    try:
        g.throw(KeyError("k"))
    except KeyError:
        log.append("outer KeyError")
    return x - 1


@torch.compile(backend="eager")
def send_to_end(x):
    g = adder(x, 1)
    next(g)
    try:
        g.send(torch.full_like(x, 50.0))
        g.send(torch.full_like(x, 50.0))
        return x, "more"
    except StopIteration as stop:
        return stop.value - 51, "stop"


@torch.compile(backend="eager")
def close_unstarted(x):
    g = numbers(x)
    r = g.close()
    return x * 0, r


x = torch.arange(3, dtype=torch.float32)
print(close_it(x).tolist(), log)
print(throw_caught(x + 1).tolist(), log)
print(throw_out(x).tolist(), log)
a, how = send_to_end(x)
print(a.tolist(), how)
z, r = close_unstarted(x)
print(z.tolist(), r)
