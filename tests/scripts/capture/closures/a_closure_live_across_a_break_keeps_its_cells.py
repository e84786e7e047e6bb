# g is live at the print's break: it is rebuilt over the frame's real cells (s written to its cell), and the
# resumed frame reads s from that cell. The resumed frame pins g by its code, not its identity: the second call's
# new g hits the cache (no recompile).
# expect: break
# expect: [3.0, 3.0]
# expect: break
# expect: [6.0, 6.0]
# expect graph_breaks: 1
# expect recompiles: 0
import torch


@torch.compile
def f(x):
    s = x * 2
    g = lambda y: y + s
    print("break")
    return g(x)


print(f(torch.ones(2)).tolist())
print(f(torch.full((2,), 2.0)).tolist())
