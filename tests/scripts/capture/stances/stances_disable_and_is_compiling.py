# is_compiling() is True while tracing; a torch.compiler.disable'd function runs eager (a graph break);
# force_eager runs f eager; fail_on_recompile serves the cached entry and raises on a recompile.
# expect: eager side False
# expect: eager side False
# expect: eager side False
# expect: 22.0 4.0 22.0
# expect: Detected recompile when torch.compile stance is 'fail_on_recompile'. fil
# expect log: [0/0] [__graph_breaks] Skip calling `torch.compiler.disable()`d function
import torch


@torch.compiler.disable
def side(x):
    print("eager side", torch.compiler.is_compiling())
    return x + 1.0


@torch.compile
def f(x):
    if torch.compiler.is_compiling():
        x = x * 10.0
    return side(x) * 2.0


x = torch.ones(1)
a = f(x)
torch.compiler.set_stance("force_eager")
b = f(x)
torch.compiler.set_stance("fail_on_recompile")
c = f(x)
try:
    f(torch.ones(2, 2))
    status = "no error"
except RuntimeError as e:
    status = str(e)
torch.compiler.set_stance("default")
print(a.item(), b.item(), c.item())
print(status[:72])
