# Dict views (keys, values, items) are live: they see items added after the view was taken, inside the
# compiled function and across its calls.
import torch


def views(x):
    d = {"a": x}
    keys = d.keys()
    values = d.values()
    items = d.items()
    d["b"] = x + 1
    total = x * 0
    for v in values:
        total = total + v
    for k, v in items:
        total = total + v * len(k)
    return total + len(keys) * 10 + ("b" in keys) * 100, len(values), len(items)


opt_views = torch.compile(views, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    out = []
    for _ in range(2):
        total, n_values, n_items = opt_views(x)
        out.append(total)
        out.append(torch.tensor(float(n_values + n_items)))
    return out
