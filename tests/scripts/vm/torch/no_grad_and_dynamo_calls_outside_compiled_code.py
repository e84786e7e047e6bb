# torch.no_grad switches grad mode for its block; outside compiled code torch._dynamo's calls are no-ops, its
# config is settable, and a torch.compiler.disable'd function runs as written.
# expect: False
# expect: True
# expect: 16
# expect: 2 False
import torch
with torch.no_grad():
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
torch._dynamo.graph_break()
torch._dynamo.reset()
torch._dynamo.config.cache_size_limit = 16
print(torch._dynamo.config.cache_size_limit)
@torch.compiler.disable
def g(x):
    return x + 1
print(g(1), torch.compiler.is_compiling())
