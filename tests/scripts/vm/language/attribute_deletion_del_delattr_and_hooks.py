# Deleting attributes as CPython does: `del obj.attr` and delattr() on instances, classes and functions, a
# property's deleter, a class's own __delattr__ reaching object's through super() and object.__delattr__, and
# AttributeError for what is not there.
# expect: False 2
# expect: AttributeError 'Box' object has no attribute 'a'
# expect: deleting b
# expect: False
# expect: True False
# expect: cleared
# expect: AttributeError property 'size' of 'Sized' object has no deleter
# expect: False False
# expect: AttributeError type object 'Box' has no attribute 'nothing'
class Box:
    kind = "box"

    def __init__(self):
        self.a = 1
        self.b = 2


class Logged(Box):
    def __delattr__(self, name):
        print("deleting", name)
        super().__delattr__(name)


class Plain(Box):
    def __delattr__(self, name):
        object.__delattr__(self, name)


class Cached:
    def __init__(self):
        self._value = 5

    @property
    def value(self):
        return self._value

    @value.deleter
    def value(self):
        print("cleared")
        del self._value


class Sized:
    @property
    def size(self):
        return 3


box = Box()
del box.a
print(hasattr(box, "a"), box.b)
try:
    delattr(box, "a")
except AttributeError as e:
    print("AttributeError", e)
logged = Logged()
del logged.b
print(hasattr(logged, "b"))
plain = Plain()
delattr(plain, "a")
print(hasattr(plain, "b"), hasattr(plain, "a"))
cached = Cached()
del cached.value
try:
    del Sized().size
except AttributeError as e:
    print("AttributeError", e)


def f():
    pass


f.tag = 1
del f.tag
Box.extra = 1
delattr(Box, "extra")
print(hasattr(f, "tag"), hasattr(Box, "extra"))
try:
    del Box.nothing
except AttributeError as e:
    print("AttributeError", e)
