# User-defined context managers in compiled code: one that sets a global mode and restores it, one whose
# __enter__ returns a value used in the block, nesting with a counter of depth, and an exception through __exit__.
import torch

MODE = {"scale": 1.0}


class ScaleMode:
    def __init__(self, scale):
        self.scale = scale
        self.saved = None

    def __enter__(self):
        self.saved = MODE["scale"]
        MODE["scale"] = self.scale
        return self

    def __exit__(self, exc_type, exc, tb):
        MODE["scale"] = self.saved
        return False


class Depth:
    level = 0

    def __enter__(self):
        Depth.level += 1
        return Depth.level

    def __exit__(self, *exc):
        Depth.level -= 1


def scaled(x):
    return x * MODE["scale"]


def body(x):
    out = scaled(x)
    with ScaleMode(3.0) as m:
        out = out + scaled(x) * m.scale
        with Depth() as d1:
            with Depth() as d2:
                out = out + d1 * 10 + d2 * 100
    try:
        with ScaleMode(5.0):
            out = out + scaled(x)
            raise ValueError("leave")
    except ValueError:
        out = out + scaled(x)
    return out + Depth.level


opt_body = torch.compile(body, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    out = [opt_body(x)]
    MODE["scale"] = 2.0
    out.append(opt_body(x))
    out.append(torch.tensor([MODE["scale"], float(Depth.level)]))
    return out
