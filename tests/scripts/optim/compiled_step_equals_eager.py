# torch.compile(opt.step) of SGD (momentum, nesterov, weight decay), Adam and AdamW equals the eager step: the
# parameters and every state tensor agree after several steps, for several parameter shapes, under the inductor
# and aot_eager. Each optimizer compiles its first step (its state is created then) and the steps after it.
# expect: SGD inductor True True
# expect: SGD aot_eager True True
# expect: SGD-nesterov inductor True True
# expect: SGD-nesterov aot_eager True True
# expect: Adam inductor True True
# expect: Adam aot_eager True True
# expect: AdamW inductor True True
# expect: AdamW aot_eager True True
# expect graph_breaks: 0
# expect unique_graphs: 16
# expect code: _inference']
# expect no code: runs on the eager runtime
import torch

# Every torch.compile(opt.step) compiles one frame (the step entry), as PyTorch's Optimizer.step wrapper: 16 entries here.
torch._dynamo.config.recompile_limit = 32


def make_params():
    torch.manual_seed(0)
    return [torch.randn(8, 5, requires_grad=True), torch.randn(5, requires_grad=True), torch.randn(3, 2, 4, requires_grad=True)]


def loss_of(params):
    w, b, k = params
    return ((torch.ones(3, 8) @ w + b).tanh() ** 2).sum() + (k * k).sum() * 0.5


def train(cls, backend, kwargs):
    params = make_params()
    opt = cls(params, **kwargs)
    step = torch.compile(opt.step, backend=backend) if backend else opt.step
    for _ in range(4):
        loss_of(params).backward()
        step()
        opt.zero_grad()
    return params, opt


def same(a, b):
    return all(torch.allclose(x, y, rtol=1e-5, atol=1e-6) for x, y in zip(a, b))


def state_tensors(opt, params):
    out = []
    for p in params:
        for key in sorted(opt.state[p].keys()):
            out.append(opt.state[p][key])
    return out


cases = [
    ("SGD", torch.optim.SGD, dict(lr=0.05, momentum=0.9, weight_decay=0.01)),
    ("SGD-nesterov", torch.optim.SGD, dict(lr=0.05, momentum=0.8, nesterov=True, foreach=True)),
    ("Adam", torch.optim.Adam, dict(lr=0.01, weight_decay=0.02, fused=True)),
    ("AdamW", torch.optim.AdamW, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, foreach=True)),
]
for name, cls, kwargs in cases:
    eager_params, eager_opt = train(cls, None, kwargs)
    for backend in ["inductor", "aot_eager"]:
        params, opt = train(cls, backend, kwargs)
        print(name, backend, same(params, eager_params), same(state_tensors(opt, params), state_tensors(eager_opt, eager_params)))
