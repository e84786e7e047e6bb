# type(name, bases, namespace) makes a class at run time, as a class statement would: attributes and methods from
# the namespace, the base's methods inherited, __module__ from the caller, a compiled function reading its instance's
# attributes; wrong argument types raise CPython's TypeError.
# expect: Cfg 2 0.25 True __main__
# expect: True tensor([6., 6.]) tensor([-4., -4.])
# expect: tensor([2.2500, 2.2500, 2.2500])
# expect: TypeError: type.__new__() argument 2 must be tuple, not list
# expect: TypeError: type.__new__() argument 3 must be dict, not int
import torch


class Base:
    scale = 3.0

    def f(self, x):
        return x * self.scale


Cfg = type("Cfg", (), {"repeat": 2, "shift": 0.25})
cfg = Cfg()
print(Cfg.__name__, cfg.repeat, cfg.shift, type(cfg) is Cfg, Cfg.__module__)
Sub = type("Sub", (Base,), {"scale": 5.0, "g": lambda self, x: self.f(x) + 1})
print(isinstance(Sub(), Base), Base().f(torch.ones(2)) * 2, Sub().g(torch.ones(2)) - 10)


@torch.compile
def shifted(x):
    return x * cfg.repeat + cfg.shift


print(shifted(torch.ones(3)))
for bad in (("X", [], {}), ("X", (), 3)):
    try:
        type(*bad)
    except TypeError as e:
        print("TypeError:", e)
