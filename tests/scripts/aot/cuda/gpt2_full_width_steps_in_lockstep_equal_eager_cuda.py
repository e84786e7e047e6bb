# requires: cuda
# GPT-2 at full width on the GPU (2 of its 12 layers, d=768, 12 heads, 1024 tokens, vocabulary 50257, batch 2: the
# sizes that pick the kernels' tiling, the flash attention extern and the 50257-class cross_entropy of the H100
# benchmark) trained compiled (forward, backward, fused AdamW step) against eager in lockstep
# (tests/scripts/_lib/lockstep_training.py): float32 to 1e-5, bf16 autocast to bf16's rounding (PyTorch's own
# compiled and eager steps differ by 7e-3 here), the compiled AdamW update given the same gradients to float32's.
import torch
from _lib.lockstep_training import lockstep
from _lib.models import GPT2

torch.manual_seed(1)
inputs = (torch.randint(0, 50257, (2, 1024)).to("cuda"), torch.randint(0, 50257, (2, 1024)).to("cuda"))


def make():
    torch.manual_seed(0)
    return GPT2(2, 768, 12, 1024, 50257)


loss, grad, update = lockstep(make, inputs, "cuda")
# expect: True True True
print(loss < 1e-5, grad < 2e-4, update < 5e-4)
loss, grad, update = lockstep(make, inputs, "cuda", autocast=torch.bfloat16)
# expect: True True True
print(loss < 1e-3, grad < 2e-2, update < 5e-4)
