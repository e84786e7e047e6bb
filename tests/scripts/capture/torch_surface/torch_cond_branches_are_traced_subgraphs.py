# torch.cond with a tensor predicate, as Dynamo captures it: each branch is traced into a subgraph registered on
# the graph module (cond_true_0 / cond_false_0, nested GraphModule classes in the graph text), the node
# torch.ops.higher_order.cond(pred, cond_true_0, cond_false_0, (operands,)) returns a tuple read by getitem, and
# tensors a branch closes over are lifted into extra operands. Every backend computes what eager computes whichever
# branch a call takes; a Python bool predicate is specialised (no cond node).
# expect: eager True True True True True True True
# expect: aot_eager True True True True True True True
# expect: inductor True True True True True True True
# expect: True True
# expect graph_breaks: 0
# expect graph_code:
# def forward(self, L_x_ : torch.Tensor):
#     l_x_ = L_x_
#     sum_1 = l_x_.sum()
#     gt = sum_1 > 0;  sum_1 = None
#     cond_true_0 = self.cond_true_0
#     cond_false_0 = self.cond_false_0
#     cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_,));  gt = cond_true_0 = cond_false_0 = l_x_ = None
#     getitem = cond[0];  cond = None
#     return (getitem,)
# expect graph_code: cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_, l_w_))
# expect graph_code:  = cond[1];  cond = None
# expect graph:     class cond_true_0(torch.nn.Module):
# expect graph:         def forward(self, l_x_: "f32[2, 2][2, 1]cpu", l_w_: "f32[2][1]cpu"):
# expect no graph: <object>
import torch


def grow(x):
    return x.sin() + 2


def shrink(x):
    return x.cos() - 1


def pick(x):
    return torch.cond(x.sum() > 0, grow, shrink, (x,))


def closure_pick(x, w):
    def scale_w(x):
        return x * w

    def shift_w(x):
        return x - w

    return torch.cond(x.sum() > 0, scale_w, shift_w, (x,))


def pair(x, y):
    def both(a, b):
        return a + b, a * b

    def swap(a, b):
        return b - a, a / b

    s, p = torch.cond(x.mean() > y.mean(), both, swap, (x, y))
    return s * 2 + p


def flag_pick(x, flag):
    return torch.cond(flag, grow, shrink, (x,))


x = torch.tensor([[0.5, 1.0], [2.0, 3.0]])
w = torch.tensor([2.0, -1.0])
for backend in ["eager", "aot_eager", "inductor"]:
    f = torch.compile(pick, backend=backend)
    g = torch.compile(closure_pick, backend=backend)
    h = torch.compile(pair, backend=backend)
    k = torch.compile(flag_pick, backend=backend)
    print(backend, torch.allclose(f(x), pick(x)), torch.allclose(f(-x), pick(-x)), torch.allclose(g(x, w), closure_pick(x, w)),
          torch.allclose(g(-x, w), closure_pick(-x, w)), torch.allclose(h(x, w), pair(x, w)), torch.allclose(h(-x, w), pair(-x, w)),
          torch.allclose(k(x, False), flag_pick(x, False)))

# Gradients through the branch the predicate picks, compiled with AOT Autograd, equal eager's.
grads = []
for sign in [1.0, -1.0]:
    xc = (x * sign).requires_grad_()
    torch.compile(pick, backend="aot_eager")(xc).sum().backward()
    xe = (x * sign).requires_grad_()
    pick(xe).sum().backward()
    grads.append(torch.allclose(xc.grad, xe.grad))
print(*grads)
