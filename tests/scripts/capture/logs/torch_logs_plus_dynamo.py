# TORCH_LOGS=+dynamo: Dynamo at DEBUG, which adds the start-compiling line with the user's stack and shows the
# artifacts that are not off by default (guards, graph_code, ...), but not bytecode, which is.
# torch_logs: +dynamo
# expect: [3.0]
# expect log: [0/0] torchdynamo start compiling g capture/logs/torch_logs_plus_dynamo.py:14, stack (elided 5 frames):
# expect log: [0/0]   File "capture/logs/torch_logs_plus_dynamo.py", line 19, in <module>
# expect log: [0/0] Step 1: torchdynamo start tracing g
# expect log: [0/0] [__guards] GUARDS:
# expect log: [0/0] [__graph_code] TRACED GRAPH
# expect no log: [__bytecode]
import torch


@torch.compile(backend="eager")
def g(x):
    return x + 2


print(g(torch.ones(1)).tolist())
