# add/discard/remove/update/clear on a module-global set and on a set attribute are Dynamo's SetVariable side
# effects: no graph break, later reads in the trace see them, they are replayed after the graph, and the guard on
# the set's contents (G['seen'] == {1, 2}) recompiles once the set has changed.
# expect: [5.0, 7.0] [2, 3] ['b', 'c'] [5.0, 7.0] [5.0, 7.0] [2, 3] ['b', 'c']
# expect: [1.0, 2.0] [] [] [1.0, 2.0] []
# expect graph_breaks: 0
# expect unique_graphs: 4
# expect recompiles: 2
import torch

seen = {1, 2}
pool = {5, 6}
same_pool = pool  # the same set under a second name: a read of it sees the change made through the first


class Holder:
    def __init__(self):
        self.tags = {"a"}


h = Holder()


@torch.compile(backend="eager")
def f(x):
    seen.add(3)
    seen.discard(1)
    n = len(seen)  # 2: the trace reads {2, 3}
    h.tags.update(["b", "c"])
    h.tags.discard("a")
    return x * n + len(h.tags) + (3 in seen)


@torch.compile(backend="eager")
def g(x):
    pool.remove(5)
    pool.clear()
    return x + len(same_pool)


x = torch.tensor([1.0, 2.0])
r1 = f(x)
s1, t1 = sorted(seen), sorted(h.tags)
r2 = f(x)  # recompiles: seen is {2, 3} now
r3 = f(x)  # the second entry again: the changes are no-ops on the changed sets
print(r1.tolist(), s1, t1, r2.tolist(), r3.tolist(), sorted(seen), sorted(h.tags))
q1 = g(x)
p1 = sorted(pool)
pool.add(5)
q2 = g(x)  # {5} is not {5, 6}: recompiles, and remove(5) still finds 5
print(q1.tolist(), p1, sorted(same_pool), q2.tolist(), sorted(pool))
