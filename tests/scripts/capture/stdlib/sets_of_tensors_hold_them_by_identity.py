# Sets built in the frame may hold tensors, told apart by identity as Python hashes them: an in-place result is
# its receiver, so adding it again changes nothing; `in` compares inputs under NO_TENSOR_ALIASING, so passing one
# tensor twice recompiles. A returned set is a new set per call. One graph per entry, no break.
# expect: 1 False 2
# expect: 1 True 1
# expect: [2.0, 2.0]
# expect graph_breaks: 0
# expect unique_graphs: 2
# expect recompiles: 1
import torch


@torch.compile(backend="eager")
def f(x, y):
    same = x.add_(1)
    seen = {x}
    seen.add(same)
    pool = set([y, 3])
    pool.add(3)
    return len(seen), x in pool, {*seen, y}


a = torch.zeros(2)
n, found, returned = f(a, torch.ones(2))
print(n, found, len(returned))
n, found, returned = f(a, a)
print(n, found, len(returned))
print(a.tolist())
