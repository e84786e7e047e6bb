# What recompiles and what does not: a tensor of another rank, None then a tensor for an optional argument, a
# string argument's value, a tuple argument of another length, an attribute of a global config object changed
# between calls, and the grad mode (a call under no_grad); repeats of a seen case reuse its entry.
import torch


class Config:
    def __init__(self):
        self.scale = 2
        self.use_bias = True


CONFIG = Config()


def by_rank(x):
    return x.sum(-1) * x.dim()


def optional_bias(x, bias=None):
    y = x * 2
    if bias is not None:
        y = y + bias
    return y


def by_mode(x, mode):
    if mode == "double":
        return x * 2
    if mode.startswith("neg"):
        return -x
    return x


def by_tuple(x, dims):
    y = x
    for d in dims:
        y = y + d
    return y * len(dims)


def by_config(x):
    y = x * CONFIG.scale
    if CONFIG.use_bias:
        y = y + 1
    return y


def by_grad_mode(x, w):
    y = x * w
    return y, torch.tensor([y.requires_grad], device=x.device)


opt_rank = torch.compile(by_rank, backend="eager")
opt_optional = torch.compile(optional_bias, backend="eager")
opt_mode = torch.compile(by_mode, backend="eager")
opt_tuple = torch.compile(by_tuple, backend="eager")
opt_config = torch.compile(by_config, backend="eager")
opt_grad = torch.compile(by_grad_mode, backend="eager")


def main(device):
    x = torch.arange(6, dtype=torch.float32, device=device)
    m = x.reshape(2, 3)
    out = [opt_rank(x), opt_rank(m), opt_rank(x + 1)]
    out += [opt_optional(x), opt_optional(x, x), opt_optional(x)]
    out += [opt_mode(x, "double"), opt_mode(x, "negate"), opt_mode(x, "same"), opt_mode(x, "double")]
    out += [opt_tuple(x, (1, 2)), opt_tuple(x, (1, 2, 3)), opt_tuple(x, (1, 2))]
    out.append(opt_config(x))
    CONFIG.scale = 3
    out.append(opt_config(x))
    CONFIG.use_bias = False
    out.append(opt_config(x))
    w = torch.ones(6, device=device, requires_grad=True)
    y, flag = opt_grad(x, w)
    out += [y.detach(), flag.float()]
    with torch.no_grad():
        y, flag = opt_grad(x, w)
    out += [y, flag.float()]
    return out
