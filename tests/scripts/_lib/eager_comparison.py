# Training compiled against eager: the same optimizer steps run on two copies of a model, and every loss,
# gradient and parameter compared element by element.
import torch


def train(model, backend, steps, opt_name, inputs, targets, step_fn):
    """Losses, then each step's gradients, then the final parameters; backend None runs eagerly."""
    run = torch.compile(model, backend=backend) if backend else model
    params = list(model.parameters())
    opt = torch.optim.Adam(params, lr=0.01) if opt_name == "adam" else torch.optim.SGD(params, lr=0.1, momentum=0.9)
    out = []
    for i in range(steps):
        opt.zero_grad()
        loss = step_fn(run, inputs, targets)
        loss.backward()
        out.append(loss.detach())
        for p in params:
            out.append(p.grad.clone())
        opt.step()
    for p in params:
        out.append(p.detach().clone())
    return out


def compare_training(make, backend, steps, opt_name, inputs, targets, step_fn):
    """train() on make()'s model eagerly and compiled with backend: [eager values, compiled values]."""
    eager = train(make(), None, steps, opt_name, inputs, targets, step_fn)
    compiled = train(make(), backend, steps, opt_name, inputs, targets, step_fn)
    return [eager, compiled]


def eager_and_compiled(f, run, backend="inductor"):
    """run(f) (a list of tensors) eagerly and with f compiled by backend: [eager values, compiled values]."""
    return [run(f), run(torch.compile(f, backend=backend))]


def same_as_eager(pair, tolerance=1e-4):
    """True when every compiled value is within tolerance * (1 + |eager|) of eager's, element by element; else
    which value and element differ."""
    eager, compiled = pair
    if len(eager) != len(compiled):
        return f"{len(eager)} eager values, {len(compiled)} compiled"
    for i in range(len(eager)):
        a = eager[i].detach().double().reshape(-1).tolist()
        b = compiled[i].detach().double().reshape(-1).tolist()
        if len(a) != len(b):
            return f"value {i}: {len(a)} elements eager, {len(b)} compiled"
        for k in range(len(a)):
            if not abs(a[k] - b[k]) <= tolerance * (1.0 + abs(a[k])):
                return f"value {i} element {k}: eager {a[k]}, compiled {b[k]}"
    return True
