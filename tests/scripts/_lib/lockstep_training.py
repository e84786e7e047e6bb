# Training steps of a model eagerly and compiled in lockstep: before each optimizer step the compiled copy takes the
# eager copy's gradients, so both stay on the same parameters and every step is compared on its own (losses and
# gradients of the step, then each parameter's update). A free-running comparison of many bf16 steps measures chaos
# as much as the compiler: where training is unstable, rounding-level differences grow step by step. The test
# programs use lockstep(); tests/bench/aot_training_diff.py prints lockstep_steps() parameter by parameter.
import torch


def difference(a, b):
    """(||b - a|| / ||a|| over the whole tensor (1 for a zero a), max |b - a|)."""
    a = a.detach().float()
    b = b.detach().float()
    norm = float(a.norm())
    return float((b - a).norm()) / (norm if norm > 0 else 1.0), float((b - a).abs().max())


def lockstep_steps(eager_model, compiled_model, loss_of, steps, lr=1e-3, fused=False, own_gradients=False, options=None,
                   reference=None):
    """AdamW on both models, the compiled one through torch.compile(model) and torch.compile(opt.step); before each
    step the compiled copy takes the eager gradients (own_gradients keeps its own, as a real loop would). Yields
    each step's (eager loss, compiled loss, rows), one row per parameter: (eager gradient, compiled gradient, eager
    update, compiled update, eager parameter, compiled parameter, reference gradient) after the step. `options`:
    torch.compile's. `reference`: (model, loss_of) of a third copy (float32, say), given the eager parameters before
    each step; its gradient is the row's last item (None without one)."""
    compiled = torch.compile(compiled_model, options=options) if options else torch.compile(compiled_model)
    eager_params = list(eager_model.parameters())
    compiled_params = list(compiled_model.parameters())
    eager_opt = torch.optim.AdamW(eager_params, lr=lr, fused=fused)
    compiled_opt = torch.optim.AdamW(compiled_params, lr=lr, fused=fused)
    compiled_step = torch.compile(compiled_opt.step)
    reference_params = list(reference[0].parameters()) if reference else []
    for i in range(steps):
        if reference:
            with torch.no_grad():
                for r, p in zip(reference_params, eager_params):
                    r.copy_(p)
            reference[0].zero_grad()
            reference[1](reference[0]).backward()
        eager_opt.zero_grad()
        compiled_opt.zero_grad()
        eager_loss = loss_of(eager_model)
        eager_loss.backward()
        compiled_loss = loss_of(compiled)
        compiled_loss.backward()
        gradients = [(p.grad, q.grad) for p, q in zip(eager_params, compiled_params)]
        before = [(p.detach().clone(), q.detach().clone()) for p, q in zip(eager_params, compiled_params)]
        if not own_gradients:
            for p, q in zip(eager_params, compiled_params):
                q.grad = p.grad.detach().clone()
        eager_opt.step()
        compiled_step()
        rows = []
        for j, (p, q, (gp, gq), (p0, q0)) in enumerate(zip(eager_params, compiled_params, gradients, before)):
            rows.append((gp, gq, p.detach() - p0, q.detach() - q0, p.detach(), q.detach(),
                         reference_params[j].grad if reference else None))
        yield eager_loss, compiled_loss, rows


def lockstep(make, inputs, device, steps=3, autocast=None, lr=1e-3, against_float32=False):
    """make() twice (the same parameters), AdamW (fused on cuda) in lockstep_steps; returns the worst (loss
    difference, gradient, update) relative difference over the steps. against_float32 (for autocast): the gradient
    item is instead how much further the compiled gradient is from a float32 gradient (a third copy without autocast,
    on the same parameters) than the eager one is, the worst over parameters and steps (<= 0: compiled is as close to
    float32 as eager). In bf16 eager is no exact reference: cuBLAS sums a product in another order, or rounds partial
    sums to bf16, for another shape or alignment (a padded k), and the eager side can be the less exact one."""
    def loss_of(model):
        if autocast is None:
            return model(*inputs)
        with torch.autocast(device, dtype=autocast):
            return model(*inputs)

    reference = (make().to(device), lambda model: model(*inputs)) if against_float32 else None
    worst_loss, worst_update = 0.0, 0.0
    worst_grad = -1.0 if against_float32 else 0.0
    for eager_loss, compiled_loss, rows in lockstep_steps(make().to(device), make().to(device), loss_of, steps, lr,
                                                          fused=device == "cuda", reference=reference):
        worst_loss = max(worst_loss, abs(float(compiled_loss) - float(eager_loss)) / abs(float(eager_loss)))
        for eager_grad, compiled_grad, eager_update, compiled_update, _, _, reference_grad in rows:
            if against_float32:
                excess = difference(reference_grad, compiled_grad)[0] - difference(reference_grad, eager_grad)[0]
                worst_grad = max(worst_grad, excess)
            else:
                worst_grad = max(worst_grad, difference(eager_grad, compiled_grad)[0])
            worst_update = max(worst_update, difference(eager_update, compiled_update)[0])
    return worst_loss, worst_grad, worst_update
