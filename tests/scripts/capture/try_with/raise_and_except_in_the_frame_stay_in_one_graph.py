# A raise that a handler of the compiled frame catches is traced, as Dynamo traces it: the exception object is
# made in the trace, `except` clauses match by class (a tuple of classes too), `raise ... from ...` sets
# __cause__, and `finally` runs on both paths; each specialization is one graph with no break.
# expect: [0.0, 1.0, 2.0]
# expect: [-10.0, -8.0, -6.0]
# expect: [10.0, 11.0, 12.0]
# expect: [2.0, 2.0, 2.0, 2.0]
# expect graph_breaks: 0
# expect unique_graphs: 4
import torch


class LimitError(ValueError):
    pass


@torch.compile(backend="eager")
def chained(x, limit):
    try:
        try:
            if limit > 2:
                raise LimitError("too big")
            y = x + limit
        except LimitError as inner:
            raise KeyError("limit") from inner
    except (KeyError, IndexError) as outer:
        y = x - limit
        if isinstance(outer.__cause__, LimitError):
            y = y * 2
    return y


@torch.compile(backend="eager")
def with_finally(x, n):
    log = []
    try:
        if n == 0:
            raise ZeroDivisionError
        y = x + n
    except ZeroDivisionError:
        y = torch.zeros_like(x)
        log.append("caught")
    finally:
        log.append("finally")
    return y + len(log)


x = torch.arange(3, dtype=torch.float32)
print(chained(x, 0).tolist())
print(chained(x, 5).tolist())
print(with_finally(x, 9).tolist())
print(with_finally(torch.arange(4, dtype=torch.float32), 0).tolist())
