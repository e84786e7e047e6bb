# torch.compile(opt.step) of a fused AdamW reads its state (`self.state[p]['exp_avg']`, through a dict keyed by
# the parameter) afresh on every call: a state tensor replaced by another of the same layout is what the next
# compiled step reads and updates (no recompile; the same replacement in the eager run gives the same result), a
# replacement of another layout fails its guard and recompiles, and a replaced step counter is read too.
# expect: initial True
# expect: same layout True
# expect: transposed layout True
# expect: step counter True
# expect recompiles: 2
# expect log: stride mismatch at index 0
# expect no code: runs on the eager runtime
import torch


def make_params():
    torch.manual_seed(0)
    return [torch.randn(4, 6, requires_grad=True), torch.randn(6, requires_grad=True), torch.randn(6, 4, requires_grad=True)]


def loss_of(params):
    w, b, v = params
    return ((torch.ones(2, 4) @ w + b).tanh() @ v).pow(2).sum()


eager_params, params = make_params(), make_params()
eager_opt = torch.optim.AdamW(eager_params, lr=0.01, fused=True)
opt = torch.optim.AdamW(params, lr=0.01, fused=True)
runs = [(eager_params, eager_opt, eager_opt.step), (params, opt, torch.compile(opt.step))]


def train(steps, replace=None):
    for ps, o, step in runs:
        if replace:
            replace(ps, o.state)
        for _ in range(steps):
            loss_of(ps).backward()
            step()
            o.zero_grad()


def same():
    tensors = []
    for ps, o, _ in runs:
        tensors.append(list(ps) + [o.state[p][k] for p in ps for k in sorted(o.state[p].keys())])
    # (float rounding of the fused update, eager against compiled, grows over the nine steps to ~1e-5)
    return all(torch.allclose(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(*tensors))


train(3)
print("initial", same())


def same_layout(ps, state):
    state[ps[0]]["exp_avg"] = torch.full_like(state[ps[0]]["exp_avg"], 0.5)


train(2, same_layout)
print("same layout", same())


def transposed_layout(ps, state):
    state[ps[2]]["exp_avg_sq"] = torch.full((4, 6), 0.25).t()


train(2, transposed_layout)
print("transposed layout", same())


def step_counter(ps, state):
    state[ps[1]]["step"] = torch.tensor(40.0)


train(2, step_counter)
print("step counter", same())
