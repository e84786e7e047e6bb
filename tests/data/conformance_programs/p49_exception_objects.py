# Exception objects in compiled code: a custom exception whose __init__ stores fields and calls super().__init__
# with a message, str(e) and e.args, `raise ... from err` setting __cause__, `raise ... from None` suppressing the
# context, an implicit __context__, a NotImplementedError from a base method, ZeroDivisionError from int // 0,
# and a return inside finally overriding the try's return.
import torch


class ShapeError(ValueError):
    def __init__(self, expected, got):
        super().__init__(f"expected {expected}, got {got}")
        self.expected = expected
        self.got = got


class Base:
    def scale(self):
        raise NotImplementedError("subclass must scale")


class Doubler(Base):
    def scale(self):
        return 2


def check(n):
    if n != 3:
        raise ShapeError(3, n)
    return n


def chained(x):
    facts = []
    try:
        check(x.shape[0] + 1)
    except ShapeError as e:
        facts += [e.expected, e.got, len(str(e)), len(e.args), isinstance(e, ValueError)]
    try:
        try:
            check(5)
        except ShapeError as inner:
            raise KeyError("outer") from inner
    except KeyError as e:
        facts += [isinstance(e.__cause__, ShapeError), e.__cause__.got]
    try:
        try:
            {}["k"]
        except KeyError:
            raise IndexError("masked") from None
    except IndexError as e:
        facts += [e.__cause__ is None, e.__suppress_context__, isinstance(e.__context__, KeyError)]
    try:
        try:
            1 // 0
        except ZeroDivisionError:
            raise RuntimeError("while dividing")
    except RuntimeError as e:
        facts += [isinstance(e.__context__, ZeroDivisionError)]
    return x * len(facts), torch.tensor([float(f) for f in facts], device=x.device)


def dispatch(x, obj):
    try:
        k = obj.scale()
    except NotImplementedError as e:
        k = len(e.args[0])
    return x * k


def finally_wins(x):
    try:
        return x + 1
    finally:
        return x - 1


opt_chained = torch.compile(chained, backend="eager")
opt_dispatch = torch.compile(dispatch, backend="eager")
opt_finally = torch.compile(finally_wins, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    y, facts = opt_chained(x)
    return [y, facts, opt_dispatch(x, Base()), opt_dispatch(x, Doubler()), opt_finally(x)]
