# requires: cuda
# A training step under torch.autocast("cuda", bfloat16), compiled with the inductor on the GPU, against the same
# step run eagerly: CUDA's policy runs the matmuls in bfloat16 and cross_entropy in float32, and the backward runs
# in the dtypes the forward used. Both passes compile (the casts too): the bfloat16 linear with its bias is one
# cuBLASLt call eagerly and compiled (it was a rounded product plus a rounded bias add eagerly, one rounding
# compiled: the gradients parted).
import torch
import torch.nn.functional as F
from _lib.autocast_training import compiled_equals_eager


def step(x, target, w1, b1, w2):
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        h = F.gelu(F.linear(x, w1.t(), b1))
        logits = h @ w2
        loss = F.cross_entropy(logits, target)
    return loss, logits.dtype


# expect: True torch.bfloat16 torch.float32
print(*compiled_equals_eager(step, "cuda"))
# expect unique_graphs: 1
# expect graph_code: _enter_autocast = torch.amp.autocast_mode._enter_autocast('cuda', torch.bfloat16, True, None)
# expect no code: runs on the eager runtime
