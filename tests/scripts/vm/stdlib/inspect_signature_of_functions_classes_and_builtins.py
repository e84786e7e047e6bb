# inspect.signature of functions (every parameter kind), classes, bound methods and torch.optim's classes.
# expect: (a, b=2, /, c=3, *args, d, e=5, **kw) ['a', 'b', 'c', 'args', 'd', 'e', 'kw'] 5 KEYWORD_ONLY
# expect: True *args
# expect: (x, y=1) (z) True True
# expect: True lr=0.001
# expect: TypeError: 3 is not a callable object
import inspect
import torch
def f(a, b=2, /, c=3, *args, d, e=5, **kw):
    pass
class C:
    def __init__(self, x, y=1):
        pass
    def m(self, z):
        pass
sig = inspect.signature(f)
print(sig, list(sig.parameters), sig.parameters['e'].default, sig.parameters['d'].kind)
print(sig.parameters['d'].default is inspect.Parameter.empty, sig.parameters['args'])
print(inspect.signature(C), inspect.signature(C(0).m), inspect.isclass(C), inspect.isfunction(f))
print('fused' in inspect.signature(torch.optim.AdamW).parameters, inspect.signature(torch.optim.SGD).parameters['lr'])

try:
    import inspect
    inspect.signature(3)
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
