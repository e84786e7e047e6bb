# torch.compile(opt.step) against the eager step on one device (the cpu and cuda programs of optim/): parameters of
# several shapes (a matrix, a vector, a 3-d tensor, one without a gradient) and every state tensor after four steps
# with a decaying learning rate, SGD (momentum, nesterov, weight decay), Adam and AdamW, float32 and bfloat16.
import torch
from _lib.eager_comparison import same_as_eager


def train(opt_name, backend, dtype, device):
    """The parameters, then the state tensors of the three that have gradients; backend None steps eagerly."""
    torch.manual_seed(0)
    shapes = [(16, 9), (9,), (3, 4, 5), (2, 2)]
    params = [torch.randn(s).to(device=device, dtype=dtype).requires_grad_(True) for s in shapes]
    if opt_name == "sgd":
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=0.01, foreach=True)
    elif opt_name == "nesterov":
        opt = torch.optim.SGD(params, lr=0.05, momentum=0.8, nesterov=True)
    elif opt_name == "adam":
        opt = torch.optim.Adam(params, lr=0.01, weight_decay=0.02, fused=True)
    else:
        opt = torch.optim.AdamW(params, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)
    step = torch.compile(opt.step, backend=backend) if backend else opt.step
    x = torch.linspace(-1.0, 1.0, 16).to(device=device, dtype=dtype)
    for i in range(4):
        w, b, k, unused = params
        loss = ((x @ w + b).tanh() ** 2).sum() + (k * k).sum() * 0.5
        loss.backward()
        step()
        opt.zero_grad()
        opt.param_groups[0]["lr"] *= 0.9
    out = [p.detach().float().cpu() for p in params]
    for p in params[:3]:
        for key in sorted(opt.state[p].keys()):
            out.append(opt.state[p][key].detach().float().cpu())
    return out


# optimizer, backend, dtype
CASES = [("sgd", "inductor", "float32"), ("nesterov", "aot_eager", "float32"), ("adam", "inductor", "float32"),
         ("adamw", "inductor", "float32"), ("adamw", "aot_eager", "float32"), ("adam", "inductor", "bfloat16")]


def every_step_equals_eager(device):
    """Prints each case and same_as_eager of the eager and compiled steps' parameters and state."""
    for opt_name, backend, dtype_name in CASES:
        torch._dynamo.reset()
        dtype = torch.bfloat16 if dtype_name == "bfloat16" else torch.float32
        pair = [train(opt_name, None, dtype, device), train(opt_name, backend, dtype, device)]
        print(opt_name, backend, dtype_name, same_as_eager(pair, 2e-2 if dtype_name == "bfloat16" else 1e-5))
