# GPT-2 (2 layers, d=64, 64 tokens, vocabulary 256) trained compiled (forward, backward and the AdamW step) against
# eager in lockstep (tests/scripts/_lib/lockstep_training.py): each of three steps starts both copies on the same
# parameters, so the losses and gradients of every step match to rounding: float32 to 1e-5 relative, bf16 autocast
# (on the cpu) to bf16's rounding (1e-2, as PyTorch's own compiled and eager steps differ by 7e-3 at GPT-2 size),
# and the compiled AdamW update given the same gradients to float32's.
import torch
from _lib.lockstep_training import lockstep
from _lib.models import GPT2

torch.manual_seed(1)
inputs = (torch.randint(0, 256, (2, 64)), torch.randint(0, 256, (2, 64)))


def make():
    torch.manual_seed(0)
    return GPT2(2, 64, 4, 64, 256)


loss, grad, update = lockstep(make, inputs, "cpu")
# expect: True True True
print(loss < 1e-5, grad < 2e-4, update < 5e-4)
loss, grad, update = lockstep(make, inputs, "cpu", autocast=torch.bfloat16)
# expect: True True True
print(loss < 1e-3, grad < 2e-2, update < 5e-4)
