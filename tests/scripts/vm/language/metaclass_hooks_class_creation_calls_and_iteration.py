# `metaclass=`: the metaclass's __init__ runs once the class exists (with its name, bases and body namespace in
# order), subclasses inherit the metaclass, and calls, iteration, len, `in`, subscripts and attribute reads the
# class lacks go to the metaclass; super().__call__ makes the instance; type() of the class is the metaclass.
# expect: made Registry () ['__module__', '__qualname__', 'kinds']
# expect: made Plugin (<class '__main__.Registry'>,) ['__module__', '__qualname__', 'kinds', '__init__', 'run']
# expect: 2 True ['a', 'b'] a
# expect: counted 1 7
# expect: True <class '__main__.Meta'> registered
# expect error: TypeError: metaclass conflict
class Meta(type):
    def __init__(cls, name, bases, namespace):
        print("made", name, bases, list(namespace))
        cls.calls = 0

    def __call__(cls, *args):
        cls.calls += 1
        return super().__call__(*args)

    def __iter__(cls):
        return iter(cls.kinds)

    def __len__(cls):
        return len(cls.kinds)

    def __contains__(cls, item):
        return item in cls.kinds

    def __getitem__(cls, i):
        return cls.kinds[i]

    def describe(cls):
        return "registered"


class Registry(metaclass=Meta):
    kinds = ["a", "b"]


class Plugin(Registry):
    kinds = ["a", "b"]

    def __init__(self, n):
        self.n = n

    def run(self):
        return self.n


print(len(Plugin), "a" in Plugin, list(Plugin), Plugin[0])
p = Plugin(7)
print("counted", Plugin.calls, p.run())
print(isinstance(p, Plugin), type(Plugin), Plugin.describe())


class Other(type):
    pass


class Clash(Registry, metaclass=Other):
    pass
