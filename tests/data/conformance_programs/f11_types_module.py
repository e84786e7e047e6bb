# The types module as models use it: a SimpleNamespace config read by compiled code (and changed between calls),
# one made in the frame, types.MethodType binding a function to an object, isinstance against FunctionType /
# ModuleType / MethodType, and a MappingProxyType of constants.
import types

import torch

cfg = types.SimpleNamespace(scale=2.0, bias=1, name="cfg")


class Scaler:
    def __init__(self, k):
        self.k = k


def scaled(self, x):
    return x * self.k


scaler = Scaler(3.0)
scaler.apply = types.MethodType(scaled, scaler)
proxy = types.MappingProxyType({"w": 0.5, "v": 4})


def use_cfg(x):
    return x * cfg.scale + cfg.bias


def use_method(x):
    return scaler.apply(x) + 1


def kinds(x):
    if isinstance(scaled, types.FunctionType):
        x = x + 1
    if isinstance(torch, types.ModuleType):
        x = x * 2
    if isinstance(scaler.apply, types.MethodType):
        x = x - 3
    return x


def make_namespace(x):
    ns = types.SimpleNamespace(a=x, b=2)
    ns.c = ns.a * ns.b
    return ns.c + ns.a


def use_proxy(x):
    return x * proxy["w"] + proxy.get("v", 0) + len(proxy)


opt_cfg = torch.compile(use_cfg, backend="eager")
opt_method = torch.compile(use_method, backend="eager")
opt_kinds = torch.compile(kinds, backend="eager")
opt_namespace = torch.compile(make_namespace, backend="eager")
opt_proxy = torch.compile(use_proxy, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    first = opt_cfg(x)
    cfg.scale = 3.0
    second = opt_cfg(x)
    same = types.SimpleNamespace(scale=3.0, bias=1, name="cfg") == cfg
    return [first, second, opt_method(x), opt_kinds(x), opt_namespace(x), opt_proxy(x), torch.tensor(float(same))]
