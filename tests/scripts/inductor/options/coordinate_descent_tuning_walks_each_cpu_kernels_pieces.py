# coordinate_descent_tuning on the CPU: each kernel's first launch walks the pieces its outer range splits into by
# coordinate descent on the real buffers (1, 2, 4, ... from the heuristic's choice) and keeps the fastest; a
# compile warning after the first run says what was timed and kept (one kernel: the sum reads what sin reads). The
# results equal eager's, on the first call (timed candidates ran on the same buffers) and later.
# expect: True
# expect: True
# expect warning: coordinate_descent_tuning: cwb_red_fused_mul_sin_sum_0
# expect warning: coordinate descent: pieces=
# expect warning: ; kept pieces=
# expect warnings: 1
from _lib.eager_comparison import same_as_eager
import torch


def f(x):
    return torch.sin(x) * 2, (x * x).sum(dim=1)


x = torch.randn(512, 1024)
g = torch.compile(f, options={"coordinate_descent_tuning": True})
first = g(x)
second = g(x)
print(same_as_eager([list(f(x)), list(first)]))
print(same_as_eager([list(f(x)), list(second)]))
