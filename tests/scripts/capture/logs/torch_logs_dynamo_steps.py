# TORCH_LOGS=dynamo: Dynamo's INFO lines for each frame compile, under its compile id and with no artifact tag
# (start and end of tracing, the call to the backend); the DEBUG lines (+dynamo) and the artifacts stay quiet.
# torch_logs: dynamo
# expect: [2.0, 2.0]
# expect log: [0/0] Step 1: torchdynamo start tracing f capture/logs/torch_logs_dynamo_steps.py:14
# expect log: [0/0] Step 1: torchdynamo done tracing f (RETURN_VALUE)
# expect log: [0/0] Step 2: calling compiler function eager
# expect log: [0/0] Step 2: done compiler function eager
# expect no log: torchdynamo start compiling
# expect no log: [__guards]
import torch


@torch.compile(backend="eager")
def f(x):
    return x * 2


print(f(torch.ones(2)).tolist())
