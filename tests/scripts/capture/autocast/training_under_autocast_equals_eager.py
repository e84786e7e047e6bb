# A training step under torch.autocast("cpu", bfloat16), compiled with the inductor, against the same step run
# eagerly: the graph records _enter_autocast/_exit_autocast as Dynamo does, AOT Autograd writes the casts into
# the forward, and the backward runs in the dtypes the forward used.
import torch
import torch.nn.functional as F
from _lib.autocast_training import compiled_equals_eager


def step(x, target, w1, b1, w2):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        h = F.gelu(F.linear(x, w1.t(), b1))
        logits = h @ w2
        loss = F.cross_entropy(logits, target)
    return loss, logits.dtype


# expect: True torch.bfloat16 torch.float32
print(*compiled_equals_eager(step, "cpu"))
# expect unique_graphs: 1
# expect graph_code: _enter_autocast = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)
# expect graph_code: _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = _exit_autocast = None
# expect graph: to_3: "bf16[32, 5][5, 1]cpu" = primals_4.to(torch.bfloat16)
# expect graph: to_4: "f32[8, 5][5, 1]cpu" = logits.to(torch.float32)
# expect no code: runs on the eager runtime
