# Sizes, dtypes and devices turned into strings in compiled code: str(x.shape), f-strings of tuple(x.shape) and of
# a size with a format spec, "%dx%d" % x.shape, str.format of size(1), str(x.dtype) and the device type, used as
# dict keys and compared; a second call with another shape gives other strings.
import torch


def describe(x):
    shape_text = str(x.shape)
    key = "%dx%d" % tuple(x.shape)
    padded = f"{x.size(0):03d}|{x.size(1):<3}|"
    dims = "{}-{}".format(*x.shape)
    kind = str(x.dtype).split(".")[-1]
    table = {"2x3": 1.0, "3x4": 2.0, "4x2": 3.0}
    scale = table.get(key, -1.0)
    facts = [len(shape_text), shape_text == "torch.Size([2, 3])", len(padded), padded.startswith("00"),
             dims == "2-3", kind == "float32", x.device.type in ("cpu", "cuda"), f"{tuple(x.shape)}" == "(2, 3)"]
    return x * scale, torch.tensor([float(f) for f in facts], device=x.device)


opt_describe = torch.compile(describe, backend="eager")


def main(device):
    a = torch.arange(6, dtype=torch.float32, device=device).reshape(2, 3)
    b = torch.arange(12, dtype=torch.float32, device=device).reshape(3, 4)
    c = torch.arange(8, dtype=torch.float32, device=device).reshape(4, 2)
    out = []
    for t in (a, b, c, a):
        y, facts = opt_describe(t)
        out += [y, facts]
    return out
