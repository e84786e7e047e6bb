# torch.cond with a tensor predicate is one graph without a break (Dynamo's count): the branches are traced
# subgraphs and torch.ops.higher_order.cond runs the one the predicate picks when the graph runs, so the same graph
# serves both branches. A Python bool predicate picks its branch at trace time; a branch that is a closure made in
# the frame is traced too (what it reads from the frame becomes an operand). A branch with a side effect outside
# it (appending to a global list) cannot be a subgraph: the graph breaks with the reason and torch.cond runs
# eagerly, so the effect happens once per call.
# expect: [[2.0, 3.0], [4.0, 5.0]] [[0.0, 1.0], [2.0, 3.0]]
# expect: [[2.0, 3.0], [4.0, 5.0]]
# expect: [[5.0, 6.0], [7.0, 8.0]] [[15.0, 16.0], [17.0, 18.0]]
# expect: [[2.0, 3.0], [4.0, 5.0]] [[0.0, 1.0], [2.0, 3.0]] 1
# expect unique_graphs: 6
# expect graph_breaks: 1
# expect graph_code: cond = torch.ops.higher_order.cond(gt, cond_true_0, cond_false_0, (l_x_,))
# expect log: torch.cond: unsupported branch
import torch

calls = []


def grow(x):
    return x + 2


def shrink(x):
    return -x


def logged_grow(x):
    calls.append(1)
    return x + 2


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


@torch.compile(backend="eager")
def logged_pick(x):
    return torch.cond(x.sum() > 0, logged_grow, shrink, (x,))


x = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(pick(x).tolist(), pick(-x).tolist())
print(constant_pick(x).tolist())
print(closure_pick(x, 5).tolist(), closure_pick(x + 10, 5).tolist())
print(logged_pick(x).tolist(), logged_pick(-x).tolist(), len(calls))
