# Exceptions inside compiled code: a custom exception class raised and caught in the frame and in a helper,
# `raise ... from ...`, `except (A, B)`, `finally` on the normal and the exceptional path, nested handlers.
import torch


class ScaleError(Exception):
    def __init__(self, factor):
        super().__init__("bad factor")
        self.factor = factor


class LimitError(ValueError):
    pass


def checked_scale(x, factor):
    if factor < 0:
        raise ScaleError(factor)
    return x * factor


def guarded(x, factor):
    try:
        return checked_scale(x, factor)
    except ScaleError as e:
        return x * -e.factor


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


def with_finally(x, n):
    log = []
    try:
        if n == 0:
            raise ZeroDivisionError("n")
        y = x / n
    except ZeroDivisionError:
        y = torch.zeros_like(x)
        log.append("caught")
    finally:
        log.append("finally")
    return y + len(log)


opt_guarded = torch.compile(guarded, backend="eager")
opt_chained = torch.compile(chained, backend="eager")
opt_finally = torch.compile(with_finally, backend="eager")


def main(device):
    x = torch.linspace(-1.0, 1.0, 5, device=device)
    out = []
    out.append(opt_guarded(x, 2.0))
    out.append(opt_guarded(x, -3.0))
    out.append(opt_chained(x, 1))
    out.append(opt_chained(x, 5))
    out.append(opt_finally(x, 2))
    out.append(opt_finally(x, 0))
    return out
