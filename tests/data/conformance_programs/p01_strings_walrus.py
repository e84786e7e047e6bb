# String formatting and the walrus operator in compiled code: f-strings with format specs, `%` formatting,
# str.format, split/join/replace/startswith, formatted names as dict keys, `:=` in a condition and a comprehension.
import torch

SCALES = {"layer_0": 1.0, "layer_1": 2.0, "layer_2": 3.0}


def named_scales(x, n):
    out = x
    for i in range(n):
        out = out * SCALES[f"layer_{i}"]
    tag = "%s-%d-%.2f" % ("run", n, 0.5)
    parts = tag.split("-")
    if parts[0].startswith("ru") and len(parts) == 3:
        out = out + float(parts[2])
    label = "{}:{:>4}|{:03d}".format("w", n, n * 7)
    joined = "_".join(parts).replace("_", "").upper()
    return out + len(label) + len(joined) + (1 if joined.endswith("50") else 0)


def walrus(x):
    total = x
    if (n := x.shape[0]) > 2:
        total = total + n
    squares = [y for k in range(5) if (y := k * k) % 2 == 0]
    return total * sum(squares) + (m := len(squares)) * m


opt_named = torch.compile(named_scales, backend="eager")
opt_walrus = torch.compile(walrus, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    return [opt_named(x, 3), opt_named(x, 2), opt_walrus(x), opt_walrus(x[:2])]
