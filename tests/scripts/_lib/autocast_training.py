# A training step under autocast, compiled with the inductor, against the same step run eagerly on one device:
# three SGD steps, the loss and logits dtypes and every gradient compared.
import torch


def make_params(device):
    torch.manual_seed(0)
    return [torch.randn(16, 32, device=device, requires_grad=True), torch.randn(32, device=device, requires_grad=True),
            torch.randn(32, 5, device=device, requires_grad=True)]


def compiled_equals_eager(step, device):
    """step(x, target, w1, b1, w2) -> (loss, logits dtype); returns (all agree, compiled logits dtype, loss dtype)."""
    torch.manual_seed(1)
    x = torch.randn(8, 16, device=device)
    target = torch.randint(0, 5, (8,), device=device)
    eager_params = make_params(device)
    compiled_params = make_params(device)
    compiled = torch.compile(step)
    agree = True
    for i in range(3):
        loss, dtype = step(x, target, *eager_params)
        loss.backward()
        closs, cdtype = compiled(x, target, *compiled_params)
        closs.backward()
        agree = agree and dtype == cdtype and closs.dtype == loss.dtype
        agree = agree and torch.allclose(closs, loss, rtol=0.02, atol=0.02)
        with torch.no_grad():
            for p, q in zip(eager_params, compiled_params):
                agree = agree and p.grad.dtype == q.grad.dtype and torch.allclose(p.grad, q.grad, rtol=0.05, atol=0.05)
                p -= 0.1 * p.grad
                q -= 0.1 * q.grad
                p.grad = None
                q.grad = None
    return agree, cdtype, closs.dtype
