# A namedtuple class made in the frame from constants, and one declared with typing.NamedTuple, are called in the
# trace: fields bind by position, keyword and default, read by name and index, and hasattr sees the class's
# attributes; the result keeps its class. One graph, no break, as Dynamo traces them.
# expect: Pair [2.0, 3.0] 7 True True False
# expect: Span [3.0, 4.0] True
# expect graph_breaks: 0
# expect unique_graphs: 2
import collections
from typing import NamedTuple

import torch


class Span(NamedTuple):
    start: torch.Tensor
    width: torch.Tensor

    def end(self):
        return self.start + self.width


@torch.compile(backend="eager")
def pair(a):
    Pair = collections.namedtuple("Pair", ["left", "right", "count"], defaults=(None, 7))
    p = Pair(a * 2, count=7)
    q = Pair(p.left, p[0] + 1)
    return q, hasattr(q, "_asdict"), hasattr(q, "_fields"), hasattr(q, "missing")


@torch.compile(backend="eager")
def span(a, b):
    s = Span(a, width=b)
    return Span(s.end(), s.width + s[1]), isinstance(s, tuple) and hasattr(s, "end")


q, has_asdict, has_fields, has_missing = pair(torch.ones(2))
print(type(q).__name__, [q.left[0].item(), q.right[0].item()], q.count, has_asdict, has_fields, has_missing)
s, is_tuple = span(torch.tensor([1.0, 1.0]), torch.tensor([2.0, 3.0]))
print(type(s).__name__, s.start.tolist(), is_tuple)
