# keys(), values() and items() of dicts from outside the frame (a global and an argument): Dynamo guards their
# keys and traces the views; changing a value or adding a key between calls gives this call's answer.
import torch

table = {"a": 1.0, "b": 2.0}


def use_views(x, cfg):
    out = x
    for k in table.keys():
        out = out + len(k)
    for v in table.values():
        out = out * v
    for k, v in cfg.items():
        out = out + v * len(k)
    return out + len(list(cfg.values()))


opt_views = torch.compile(use_views, backend="eager")


def main(device):
    x = torch.arange(3, dtype=torch.float32, device=device)
    cfg = {"scale": 2, "shift": 1}
    out = [opt_views(x, cfg)]
    out.append(opt_views(x, cfg))
    cfg["shift"] = 5
    out.append(opt_views(x, cfg))
    table["c"] = 0.5
    out.append(opt_views(x, cfg))
    return out
