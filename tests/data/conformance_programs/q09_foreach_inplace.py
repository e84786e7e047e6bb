# Foreach ops and in-place arithmetic with scalar-tensor operands in compiled code: _foreach_lerp_ with a 0-d
# weight, _foreach_pow with a 0-d base, addcmul_ with a 0-d value, add_ with alpha on a copy, addcdiv_, filter over
# requires_grad, torch.distributions Normal/Independent log_prob, manual_seed then randint inside the frame, and
# the constant queries onnx/fx-tracing/tf32/distributed.
import torch


def lerp(xs, ys, w):
    return torch._foreach_lerp_(xs, ys, w)


def powers(base, exps):
    return torch._foreach_pow(base, exps)


def inplace(x, y, z, s):
    a = x.clone().addcmul_(y, z, value=s)
    b = torch.tensor(x).add_(y, alpha=5.0)
    c = x.clone().addcdiv_(y, z + 2, value=0.5)
    return a, b, c


def filtered(inputs):
    out = inputs[0]
    for t in filter(lambda v: v.requires_grad, inputs):
        out = out * t
    return out


def log_prob(x):
    normal = torch.distributions.Normal(x, torch.tensor(1.0))
    ind = torch.distributions.Independent(normal, 1)
    return ind.log_prob(x * 0.5)


def seeded(x):
    torch.manual_seed(7)
    return x + torch.randint(0, 5, (4,))


def flags(x):
    if torch.onnx.is_in_onnx_export():
        x = x - 100
    if torch.fx._symbolic_trace.is_fx_tracing():
        x = x - 200
    if torch.distributed.is_available():
        x = x + 1
    if torch.backends.cuda.matmul.allow_tf32:
        return x.sin()
    return x.cos()


opt_lerp = torch.compile(lerp, backend="eager", fullgraph=True)
opt_powers = torch.compile(powers, backend="eager", fullgraph=True)
opt_inplace = torch.compile(inplace, backend="eager")
opt_filtered = torch.compile(filtered, backend="eager")
opt_log_prob = torch.compile(log_prob, backend="eager")
opt_seeded = torch.compile(seeded, backend="eager")
opt_flags = torch.compile(flags, backend="eager")


def main(device):
    xs = [torch.full((2, 2), 4.25, device=device), torch.full((2, 2), 3.5, device=device)]
    ys = [torch.ones(2, 2, device=device), torch.zeros(2, 2, device=device)]
    opt_lerp(xs, ys, torch.tensor(0.25, device=device))
    p = opt_powers(torch.tensor(0.8, device=device), [torch.tensor(3.0, device=device), torch.tensor(0.5, device=device)])
    x = torch.ones(2, 2, device=device)
    y = torch.arange(4, dtype=torch.float32, device=device).reshape(2, 2)
    z = torch.linspace(0.5, 1.5, 4, device=device).reshape(2, 2)
    a, b, c = opt_inplace(x, y, z, torch.tensor(0.3, device=device))
    grads = [torch.arange(1, 3, dtype=torch.float32, device=device),
             torch.arange(2, 4, dtype=torch.float32, device=device).requires_grad_(True)]
    f = opt_filtered(grads).detach()
    lp = opt_log_prob(torch.linspace(-1.0, 1.0, 5, device=device))
    s1 = opt_seeded(torch.zeros(4, dtype=torch.int64, device=device))
    s2 = opt_seeded(torch.zeros(4, dtype=torch.int64, device=device))
    fl = opt_flags(torch.arange(3, dtype=torch.float32, device=device))
    return xs + p + [a, b, c, f, lp, (s1 == s2).float(), fl]
