# Multiple inheritance as CPython does it: the C3 method resolution order (__mro__, mro(), __bases__), attribute
# lookup along it, cooperative super().__init__ chains in a diamond (each class's __init__ runs once, in MRO order),
# super(C, self), isinstance / issubclass over every base, a classmethod reached through super(), and type().
# expect: D B C A object
# expect: D B C A object
# expect: B C
# expect: init A C B D
# expect: D>B>C>A
# expect: B.who C.who
# expect: True True True True False
# expect: 2 3 1
# expect: made D from C
# expect: A0 B0 C0 D0 E1 F object a0 B0
# expect: M1 M2 Base
class A:
    def __init__(self, log):
        log.append("A")

    def name(self):
        return "A"

    def who(self):
        return "A.who"


class B(A):
    def __init__(self, log):
        super().__init__(log)
        log.append("B")

    def name(self):
        return "B>" + super().name()

    def who(self):
        return "B.who"


class C(A):
    level = 3

    def __init__(self, log):
        super().__init__(log)
        log.append("C")

    def name(self):
        return "C>" + super().name()

    def who(self):
        return "C.who"

    @classmethod
    def make(cls):
        return "made " + cls.__name__ + " from C"


class D(B, C):
    def __init__(self, log):
        super().__init__(log)
        log.append("D")

    def name(self):
        return "D>" + super().name()

    @classmethod
    def make(cls):
        return super().make()


print(" ".join(k.__name__ for k in D.__mro__))
print(" ".join(k.__name__ for k in D.mro()))
print(" ".join(k.__name__ for k in D.__bases__))
log = []
d = D(log)
print("init", " ".join(log))
print(d.name())
print(d.who(), super(B, d).who())
print(isinstance(d, C), isinstance(d, A), issubclass(D, C), issubclass(D, (int, B)), issubclass(C, B))
print(B.level if hasattr(B, "level") else 2, d.level, len(D.__bases__) - 1)
print(D.make())


# The example of "The Python 2.3 Method Resolution Order" (python.org): A's MRO is A B C D E F object; the last
# class is made by type() with two bases.
class F:
    pass


class E1:
    pass


class D0:
    pass


class C0(D0, F):
    pass


class B0(D0, E1):
    pass


A0 = type("A0", (B0, C0), {"tag": "a0"})
print(" ".join(k.__name__ for k in A0.__mro__), A0.tag, A0.__base__.__name__)


# A mixin's method calls super() on to the next class of the instance's MRO, which the mixin does not know.
class Base:
    def describe(self):
        return ["Base"]


class M1:
    def describe(self):
        return ["M1"] + super().describe()


class M2:
    def describe(self):
        return ["M2"] + super().describe()


class Leaf(M1, M2, Base):
    pass


print(" ".join(Leaf().describe()))
