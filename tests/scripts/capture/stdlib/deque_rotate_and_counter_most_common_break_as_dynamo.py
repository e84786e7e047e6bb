# collections under torch.compile as Dynamo traces them: a deque made in the frame is traced until a method
# Dynamo's DequeVariable does not model (rotate) breaks the graph, and the code after it resumes with the deque
# rebuilt; a Counter made in the frame is counted and updated in the trace (a missing key counts 0), and its
# most_common(n) reaches heapq's C heapify, which Dynamo skips: that break cannot resume (the frame's stack holds
# the Counter's bound method, which cannot be rebuilt), so the whole frame runs eagerly. Compiled equals eager.
# expect: [16.0, 16.0] [16.0, 16.0]
# expect: [32.0, 32.0] [32.0, 32.0]
# expect: [('a', 5), ('b', 2)] [('a', 5), ('b', 2), ('r', 2)] ['x', 'y']
# expect graph_breaks: 2
# expect unique_graphs: 2
# expect log: Dynamo does not know how to trace method `rotate` of class `deque`
# expect log: Dynamo does not know how to trace the builtin `_heapq.heapify.`
# expect log: Failed to handle graph break gracefully. Skipping the function and falling back to eager.
# expect log: Reconstruction failure
import collections
import heapq

import torch


def queues(x):
    dq = collections.deque([1, 2, 3], maxlen=4)
    dq.append(4)
    y = x * 2
    dq.rotate(1)
    return y + sum(dq) + dq[0]


def counts(x):
    c = collections.Counter("abracadabra")
    c.update(["z", "z"])
    y = x + c["a"] + c["missing"]
    top = c.most_common(2)
    return y * top[0][1] + top[1][1]


x = torch.ones(2)
print(torch.compile(queues, backend="eager")(x).tolist(), queues(x).tolist())
print(torch.compile(counts, backend="eager")(x).tolist(), counts(x).tolist())
c = collections.Counter("abracadabra")
c.update({"z": 2, "b": 0})
print(c.most_common(2), heapq.nlargest(3, c.items(), key=lambda kv: kv[1]), heapq.nsmallest(2, ["y", "z", "x"]))
