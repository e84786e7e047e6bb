# Training steps of a model eagerly and compiled in lockstep: before each optimizer step the compiled copy takes the
# eager copy's gradients, so both stay on the same parameters and every step is compared on its own (losses and
# gradients of the step, then each parameter's update). A free-running comparison of many bf16 steps measures chaos
# as much as the compiler: where training is unstable, rounding-level differences grow step by step.
import torch


def relative(a, b):
    """||b - a|| / ||a|| over the whole tensor (1 for a zero a)."""
    a = a.detach().float()
    b = b.detach().float()
    norm = float(a.norm())
    return float((b - a).norm()) / (norm if norm > 0 else 1.0)


def lockstep(make, inputs, device, steps=3, autocast=None, lr=1e-3):
    """make() twice (the same parameters), AdamW(fused on cuda) and torch.compile(opt.step) for the compiled copy;
    returns the worst (loss difference, gradient, update) relative difference over the steps."""
    eager_model = make().to(device)
    compiled_model = make().to(device)
    compiled = torch.compile(compiled_model)
    eager_params = list(eager_model.parameters())
    compiled_params = list(compiled_model.parameters())
    fused = device == "cuda"
    eager_opt = torch.optim.AdamW(eager_params, lr=lr, fused=fused)
    compiled_opt = torch.optim.AdamW(compiled_params, lr=lr, fused=fused)
    compiled_step = torch.compile(compiled_opt.step)

    def loss_of(model):
        if autocast is None:
            return model(*inputs)
        with torch.autocast(device, dtype=autocast):
            return model(*inputs)

    worst_loss, worst_grad, worst_update = 0.0, 0.0, 0.0
    for i in range(steps):
        eager_opt.zero_grad()
        compiled_opt.zero_grad()
        eager_loss = loss_of(eager_model)
        eager_loss.backward()
        compiled_loss = loss_of(compiled)
        compiled_loss.backward()
        worst_loss = max(worst_loss, abs(float(compiled_loss) - float(eager_loss)) / abs(float(eager_loss)))
        before = [p.detach().clone() for p in eager_params + compiled_params]
        for p, q in zip(eager_params, compiled_params):
            worst_grad = max(worst_grad, relative(p.grad, q.grad))
            q.grad = p.grad.detach().clone()
        eager_opt.step()
        compiled_step()
        for p, q, p0, q0 in zip(eager_params, compiled_params, before, before[len(eager_params):]):
            worst_update = max(worst_update, relative(p.detach() - p0, q.detach() - q0))
    return worst_loss, worst_grad, worst_update
