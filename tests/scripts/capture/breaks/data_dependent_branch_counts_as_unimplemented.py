# A branch on a tensor breaks the graph ("Data-dependent branching", logged without the instruction preface),
# but Dynamo counts it under counters["unimplemented"], not counters["graph_break"] (its generic_jump never moves
# the count), while a call that breaks (print) is a graph break.
# expect: rows 2
# expect: [2.0, 3.0]
# expect graph_breaks: 1
# expect unique_graphs: 2
# expect log: Graph Break Reason: Data-dependent branching
import torch


@torch.compile(backend="eager")
def f(x):
    y = x + 1
    if y.sum() > 0:
        y = y * 1
    else:
        y = y - 1
    print("rows", len(y))
    return y


print(f(torch.tensor([1.0, 2.0])).tolist())
