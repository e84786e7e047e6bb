# torch.optim's SGD (momentum, dampening, Nesterov, weight decay, maximize), Adam and AdamW (amsgrad, betas, eps,
# decoupled weight decay) over three steps of float64 parameters, against their update rules written out here in
# plain float arithmetic. The loss is sum(0.5 * c * w * w), so the gradient is c * w.
# expect: True True True True True
# expect: True True True True
import math

import torch

START = [1.0, -2.0, 0.5]
COEFFICIENTS = [1.5, 0.5, -2.0]


def sgd_rule(lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    w, buffer, history = list(START), [0.0] * 3, []
    for step in range(3):
        for i in range(3):
            g = COEFFICIENTS[i] * w[i]
            if maximize:
                g = -g
            g += weight_decay * w[i]
            if momentum != 0:
                buffer[i] = g if step == 0 else momentum * buffer[i] + (1 - dampening) * g
                g = g + momentum * buffer[i] if nesterov else buffer[i]
            w[i] -= lr * g
        history.append(list(w))
    return history


def adam_rule(lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, decoupled=True, amsgrad=False, maximize=False):
    w, m, v, v_max, history = list(START), [0.0] * 3, [0.0] * 3, [0.0] * 3, []
    for step in range(1, 4):
        for i in range(3):
            g = COEFFICIENTS[i] * w[i]
            if maximize:
                g = -g
            if decoupled:
                w[i] *= 1 - lr * weight_decay
            else:
                g += weight_decay * w[i]
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            v_max[i] = max(v_max[i], v[i])
            second = v_max[i] if amsgrad else v[i]
            denominator = math.sqrt(second) / math.sqrt(1 - beta2 ** step) + eps
            w[i] -= lr / (1 - beta1 ** step) * m[i] / denominator
        history.append(list(w))
    return history


def follows(make_optimizer, expected):
    """Three steps of make_optimizer([w]) agree with the rule's w after each step to 1e-12 relative."""
    w = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    c = torch.tensor(COEFFICIENTS, dtype=torch.float64)
    opt = make_optimizer([w])
    for step in range(3):
        opt.zero_grad()
        (0.5 * c * w * w).sum().backward()
        opt.step()
        for got, want in zip(w.tolist(), expected[step]):
            if abs(got - want) > 1e-12 + 1e-12 * abs(want):
                return f"step {step + 1}: {got} != {want}"
    return True


print(follows(lambda p: torch.optim.SGD(p, lr=0.1), sgd_rule()),
      follows(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), sgd_rule(lr=0.05, momentum=0.9)),
      follows(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
              sgd_rule(lr=0.05, momentum=0.9, weight_decay=0.01, nesterov=True)),
      follows(lambda p: torch.optim.SGD(p, 0.05, 0.5, 0.3, maximize=True),
              sgd_rule(lr=0.05, momentum=0.5, dampening=0.3, maximize=True)),
      follows(lambda p: torch.optim.SGD(p, lr=0.2, weight_decay=0.5), sgd_rule(lr=0.2, weight_decay=0.5)))
print(follows(lambda p: torch.optim.AdamW(p, lr=0.1), adam_rule(weight_decay=0.01)),
      follows(lambda p: torch.optim.AdamW(p, lr=0.1, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.5, amsgrad=True),
              adam_rule(beta1=0.8, beta2=0.9, eps=1e-6, weight_decay=0.5, amsgrad=True)),
      follows(lambda p: torch.optim.Adam(p, lr=0.1), adam_rule(decoupled=False)),
      follows(lambda p: torch.optim.Adam(p, lr=0.1, weight_decay=0.1, amsgrad=True, maximize=True),
              adam_rule(weight_decay=0.1, decoupled=False, amsgrad=True, maximize=True)))
