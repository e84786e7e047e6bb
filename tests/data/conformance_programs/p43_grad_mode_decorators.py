# Grad-mode managers used as decorators inside compiled code: @torch.no_grad (with and without parentheses),
# @torch.enable_grad() inside a no_grad region, @torch.inference_mode(), and torch.is_grad_enabled() read inside
# and after each; a compiled function that is itself decorated with no_grad.
import torch


@torch.no_grad
def frozen(x, w):
    return x * w


@torch.enable_grad()
def tracked(x, w):
    return x * w + 1


@torch.no_grad()
def switched_off(x, w):
    return x * w - 1, torch.is_grad_enabled()


@torch.inference_mode()
def inference(x):
    return x * 4


def layered(x, w):
    a = frozen(x, w)
    b, inside = switched_off(x, w)
    with torch.no_grad():
        c = tracked(x, w)
        still_off = torch.is_grad_enabled()
    d = inference(x)
    flags = [a.requires_grad, b.requires_grad, c.requires_grad, inside, still_off, torch.is_grad_enabled()]
    return a + b + c.detach() + d, torch.tensor(flags, device=x.device)


@torch.compile(backend="eager")
@torch.no_grad()
def decorated_compiled(x, w):
    y = x * w
    return y, torch.tensor([y.requires_grad, torch.is_grad_enabled()], device=x.device)


opt_layered = torch.compile(layered, backend="eager")


def main(device):
    x = torch.arange(4, dtype=torch.float32, device=device)
    w = torch.full((4,), 3.0, device=device, requires_grad=True)
    y, flags = opt_layered(x, w)
    z, flags2 = decorated_compiled(x, w)
    return [y.detach(), flags.float(), z, flags2.float(), torch.tensor([torch.is_grad_enabled()], device=device).float()]
