# Optimizer constructor argument errors in PyTorch 2.11's ValueError wording.
# expect: ValueError: Invalid learning rate: -1.0
# expect: ValueError: Invalid momentum value: -0.5
# expect: ValueError: Nesterov momentum requires a momentum and zero dampening
# expect: ValueError: Invalid weight_decay value: -1.0
# expect: ValueError: Invalid beta parameter at index 0: 1.0
# expect: ValueError: Invalid epsilon value: -1.0
# expect: ValueError: optimizer got an empty parameter list
import torch
for make in [lambda: torch.optim.SGD([torch.zeros(1)], lr=-1.0),
             lambda: torch.optim.SGD([torch.zeros(1)], lr=0.1, momentum=-0.5),
             lambda: torch.optim.SGD([torch.zeros(1)], lr=0.1, nesterov=True),
             lambda: torch.optim.SGD([torch.zeros(1)], lr=0.1, weight_decay=-1.0),
             lambda: torch.optim.Adam([torch.zeros(1)], betas=(1.0, 0.9)),
             lambda: torch.optim.AdamW([torch.zeros(1)], eps=-1.0),
             lambda: torch.optim.AdamW([], lr=0.1)]:
    try:
        make()
    except ValueError as e:
        print("ValueError:", e)
