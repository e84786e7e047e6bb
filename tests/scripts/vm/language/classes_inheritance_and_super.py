# Classes: __init__, methods, __call__, inheritance with super(), isinstance / issubclass, bound methods;
# staticmethod, classmethod and property.
# expect: 7 7 True B True
# expect: 7
# expect: 11 22 8 10
class A:
    def __init__(self, x):
        self.x = x

    def get(self):
        return self.x

    def __call__(self, y):
        return self.x + y


class B(A):
    def __init__(self, x):
        super().__init__(x * 2)

    def get(self):
        return super().get() + 1


b = B(3)
print(b.get(), b(1), isinstance(b, A), type(b).__name__, issubclass(B, A))
m = b.get
print(m())


class C:
    base = 10

    def __init__(self, v):
        self.v = v

    @staticmethod
    def twice(x):
        return 2 * x

    @classmethod
    def make(cls, v):
        return cls(v + cls.base)

    @property
    def doubled(self):
        return self.twice(self.v)


c = C.make(1)
print(c.v, c.doubled, C.twice(4), c.twice(5))
