# TORCH_LOGS=guards,graph_code prints the traced graph with shapes and the installed guards, in Dynamo's
# format, and nothing of the channels that were not asked for.
# torch_logs: guards,graph_code
# expect: 6.0
# expect log: [0/0] [__graph_code] TRACED GRAPH
# expect log: [0/0] [__graph_code]  ===== __compiled_fn_1 =====
# expect log: [0/0] [__graph_code]  class GraphModule(torch.nn.Module):
# expect log: [0/0] [__graph_code]     def forward(self, L_x_: "f32[3][1]cpu"):
# expect log: [0/0] [__graph_code]         add: "f32[3][1]cpu" = cos + 1.0;  cos = None
# expect log: [0/0] [__guards] GUARDS:
# expect log: TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), torch.float32, device=None, requires_grad=False, size=[3], stride=[1])
# expect no log: [__recompiles]
import torch


@torch.compile
def f(x):
    return torch.cos(x) + 1.0


print(f(torch.zeros(3)).sum().item())
