# What type.__new__ does once a class exists: __init_subclass__ of the nearest base (an implicit classmethod, its
# super() call reaching object's), __set_name__ of descriptors, __class_getitem__ for C[item]; and abc.ABC with
# @abstractmethod: a class with abstract methods left cannot be instantiated (CPython 3.12's TypeError), one that
# implements them all can, and an abstract method reached through super() still runs.
# expect: registered ['Plugin', 'Fast']
# expect: Fast 3
# expect: size -> Field
# expect: Box[int] Box[(1, 2)]
# expect: Can't instantiate abstract class Shape without an implementation for abstract methods 'area', 'name'
# expect: Can't instantiate abstract class Half without an implementation for abstract method 'area'
# expect: square 4 base
# expect: frozenset() ['area', 'name']
from abc import ABC, abstractmethod

registry = []


class Registered:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        registry.append(cls.__name__)
        cls.level = len(registry) + 1


class Plugin(Registered):
    pass


class Fast(Plugin):
    pass


print("registered", registry)
print(Fast.__name__, Fast.level)


class Field:
    def __set_name__(self, owner, name):
        self.where = name + " -> " + type(self).__name__


class Record:
    size = Field()


print(Record.size.where)


class Box:
    def __class_getitem__(cls, item):
        return cls.__name__ + "[" + (item.__name__ if isinstance(item, type) else str(item)) + "]"


print(Box[int], Box[1, 2])


class Shape(ABC):
    @abstractmethod
    def area(self):
        return "base"

    @abstractmethod
    def name(self):
        pass


class Half(Shape):
    def name(self):
        return "half"


class Square(Half):
    def area(self):
        return super().area()

    def name(self):
        return "square"


for cls in (Shape, Half):
    try:
        cls()
    except TypeError as e:
        print(e)
s = Square()
print(s.name(), len(s.name()) - 2, s.area())
print(Square.__abstractmethods__, sorted(Shape.__abstractmethods__))
