# requires: cuda
# GPT-2 at full width on the GPU (2 of its 12 layers, d=768, 12 heads, 1024 tokens, vocabulary 50257, batch 2: the
# sizes that pick the kernels' tiling, the flash attention extern and the 50257-class cross_entropy of the H100
# benchmark) trained compiled (forward, backward, fused AdamW step) against eager in lockstep
# (tests/scripts/_lib/lockstep_training.py): float32 to 1e-5; under bf16 autocast the loss to 1e-3, each gradient
# no further from a float32 step's (on the same parameters) than eager's is, within 5e-3 (relative, whole tensor), and
# the compiled AdamW update given the same gradients to float32's. In bf16 the compiled gradients are the closer
# ones here: the head's input gradient, [2048, 50257] @ [50257, 768], runs with k padded to 50264 (shape_padding),
# for which cuBLAS splits k and sums the parts in float32 (1.7e-3 from a float64 product of the same operands: bf16's
# rounding of the result), where eager's unaligned product rounds its partial sums to bf16 (4.7e-3; PyTorch's eager
# mm the same, 4.8e-3, on the H200, 11-27): eager's ln_f gradients are 4e-2 from float32, compiled's 5e-3.
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
loss, excess, update = lockstep(make, inputs, "cuda", autocast=torch.bfloat16, against_float32=True)
# expect: True True True
print(loss < 1e-3, excess < 5e-3, update < 5e-4)
