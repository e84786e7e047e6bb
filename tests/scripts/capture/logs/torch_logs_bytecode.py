# TORCH_LOGS=bytecode: the frame's ORIGINAL BYTECODE as convert_frame's log_bytecode formats it (name, file, first
# line, then the listing). cwb runs the graph and resumes the original code rather than rewriting it, so there is
# no MODIFIED BYTECODE to show.
# torch_logs: bytecode
# expect: [1.0, 1.0]
# expect log: [0/0] [__bytecode] ORIGINAL BYTECODE h capture/logs/torch_logs_bytecode.py line 12 
# expect log: RETURN_VALUE
# expect no log: MODIFIED BYTECODE
import torch


@torch.compile(backend="eager")
def h(x):
    return torch.sin(x) * 0 + 1


print(h(torch.ones(2)).tolist())
