# torch.cond with a tensor predicate is one graph without a break (Dynamo's count): the node
# torch.ops.higher_order.cond runs the branch the predicate picks when the graph runs, so the same graph serves both
# branches. A Python bool predicate picks its branch at trace time; a branch that is a closure made in the frame
# (whose cells change between calls) breaks the graph with the reason, and torch.cond then runs eagerly.
# expect: [[2.0, 3.0], [4.0, 5.0]] [[0.0, 1.0], [2.0, 3.0]]
# expect: [[2.0, 3.0], [4.0, 5.0]]
# expect: [[5.0, 6.0], [7.0, 8.0]] [[15.0, 16.0], [17.0, 18.0]]
# expect unique_graphs: 4
# expect graph_breaks: 1
# expect graph_code: cond = torch.ops.higher_order.cond(gt, 
# expect log: torch.cond: unsupported branch
import torch


def grow(x):
    return x + 2


def shrink(x):
    return -x


@torch.compile(backend="eager")
def pick(x):
    return torch.cond(x.sum() > 0, grow, shrink, (x,))


@torch.compile(backend="eager")
def constant_pick(x):
    return torch.cond(True, grow, shrink, (x,))


@torch.compile(backend="eager")
def closure_pick(x, k):
    def add_k(x):
        return x + k
    return torch.cond(x.sum() > 0, add_k, shrink, (x,))


x = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(pick(x).tolist(), pick(-x).tolist())
print(constant_pick(x).tolist())
print(closure_pick(x, 5).tolist(), closure_pick(x + 10, 5).tolist())
