# A unary minus and torch functions on the operand stack become FX nodes, printed as FX's GraphModule.code does.
# expect graph_breaks: 0
# expect recompiles: 0
# expect unique_graphs: 1
# expect graph_code:
# def forward(self, L_x_ : torch.Tensor):
#     l_x_ = L_x_
#     neg = -l_x_
#     mul = neg * l_x_;  neg = None
#     exp = torch.exp(mul);  mul = None
#     add = exp + l_x_;  exp = l_x_ = None
#     return (add,)
import torch


@torch.compile
def f(x):
    return torch.exp(-x * x) + x


f(torch.ones(3))
