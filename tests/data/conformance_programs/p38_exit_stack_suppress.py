# contextlib beyond contextmanager in compiled code: contextlib.suppress swallowing a KeyError raised inside the
# block (the rest of the block skipped), nullcontext(enter_result) giving its value to `as`, two nested
# generator-based managers yielding values with finally blocks, and contextlib.ExitStack with enter_context.
import contextlib

import torch


class Tag:
    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __enter__(self):
        self.log.append(self.name + "+")
        return len(self.log)

    def __exit__(self, exc_type, exc, tb):
        self.log.append(self.name + "-")
        return False


@contextlib.contextmanager
def scaled(log, k):
    log.append(k)
    try:
        yield k * 2
    finally:
        log.append(-k)


def suppressing(x):
    y = x + 1
    with contextlib.suppress(KeyError, IndexError):
        y = y * 2
        table = {"a": 1}
        y = y + table["missing"]
        y = y * 100
    with contextlib.suppress(ValueError):
        y = y + 3
    return y


def nested_managers(x, log):
    with scaled(log, 1) as a:
        with scaled(log, 2) as b:
            y = x * a + b
    with contextlib.nullcontext(5) as five:
        y = y + five
    return y + len(log) + sum(log)


def exit_stack(x, log):
    with contextlib.ExitStack() as stack:
        a = stack.enter_context(Tag(log, "a"))
        b = stack.enter_context(Tag(log, "b"))
        y = x * a + b
    return y + len(log)


opt_suppressing = torch.compile(suppressing, backend="eager")
opt_nested = torch.compile(nested_managers, backend="eager")
opt_stack = torch.compile(exit_stack, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    out = [opt_suppressing(x), opt_suppressing(x + 1)]
    log = []
    out.append(opt_nested(x, log))
    out.append(torch.tensor(log, dtype=torch.float32, device=device))
    log2 = []
    out.append(opt_stack(x, log2))
    out.append(torch.tensor([len(log2), log2.index("b-"), log2.index("a-")], device=device))
    return out
