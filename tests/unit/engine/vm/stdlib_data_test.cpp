// The standard-library modules about data types (collections, collections.abc, typing, dataclasses) on small
// scripts, checked against what CPython 3.12 prints.
#include <gtest/gtest.h>

#include "script_support.h"

using vmtest::expectError;
using vmtest::expectOutput;

TEST(VmStdlibData, OrderedDictIsADictWithItsOwnMethods) {
    expectOutput(
        "import collections\n"
        "od = collections.OrderedDict(a=1, b=2)\n"
        "od['c'] = 3\n"
        "od.move_to_end('a')\n"
        "print(od, isinstance(od, dict), isinstance(od, collections.OrderedDict), type(od).__name__)\n"
        "print(od.popitem(), od.popitem(last=False), od, len(od), list(od.keys()))\n"
        "print(collections.OrderedDict.fromkeys(['x'], 0), dict.fromkeys('ab'), isinstance({}, collections.OrderedDict))\n"
        "print(collections.OrderedDict(), od.copy(), type(od.copy()).__name__)\n",
        "OrderedDict({'b': 2, 'c': 3, 'a': 1}) True True OrderedDict\n"
        "('a', 1) ('b', 2) OrderedDict({'c': 3}) 1 ['c']\n"
        "OrderedDict({'x': 0}) {'a': None, 'b': None} False\n"
        "OrderedDict() OrderedDict({'c': 3}) OrderedDict\n");
}

TEST(VmStdlibData, DefaultdictCallsItsFactoryOnAMissingKey) {
    expectOutput(
        "from collections import defaultdict\n"
        "dd = defaultdict(list)\n"
        "dd['x'].append(1)\n"
        "print(dd['y'], dd, dd.default_factory, 'z' in dd, dd.get('z'))\n"
        "counts = defaultdict(int, {'a': 5})\n"
        "for ch in 'abca':\n"
        "    counts[ch] += 1\n"
        "print(counts, defaultdict.fromkeys('a', 'b'))\n",
        "[] defaultdict(<class 'list'>, {'x': [1], 'y': []}) <class 'list'> False None\n"
        "defaultdict(<class 'int'>, {'a': 7, 'b': 1, 'c': 1}) defaultdict(None, {'a': 'b'})\n");
    expectError("from collections import defaultdict\nd = defaultdict()\nd['k']\n", "KeyError: 'k'");
    expectError("from collections import defaultdict\ndefaultdict(3)\n", "TypeError: first argument must be callable or None");
}

TEST(VmStdlibData, CounterCountsAndOrdersByCount) {
    expectOutput(
        "from collections import Counter\n"
        "c = Counter('abracadabra')\n"
        "print(c, c['z'], 'z' in c, c.most_common(2))\n"
        "c.update('zz')\n"
        "c.subtract({'a': 4})\n"
        "print(c, c.total(), sorted(c.elements()))\n",
        "Counter({'a': 5, 'b': 2, 'r': 2, 'c': 1, 'd': 1}) 0 False [('a', 5), ('b', 2)]\n"
        "Counter({'b': 2, 'r': 2, 'z': 2, 'a': 1, 'c': 1, 'd': 1}) 9 ['a', 'b', 'b', 'c', 'd', 'r', 'r', 'z', 'z']\n");
}

TEST(VmStdlibData, NamedtupleAndTypingNamedTuple) {
    expectOutput(
        "from collections import namedtuple\n"
        "P = namedtuple('P', 'x, y', defaults=(5,))\n"
        "p = P(1)\n"
        "a, b = p\n"
        "print(p, p.x, p[1], a + b, p._asdict(), p._replace(x=3), P._make([7, 8]), isinstance(p, tuple), P._fields)\n"
        "print(P(y=2, x=1) == (1, 2), len(p), type(p).__name__, P._field_defaults)\n",
        "P(x=1, y=5) 1 5 6 {'x': 1, 'y': 5} P(x=3, y=5) P(x=7, y=8) True ('x', 'y')\n"
        "True 2 P {'y': 5}\n");
    expectError("from collections import namedtuple\nP = namedtuple('P', ['x', 'y'])\nP(1)\n",
                "TypeError: P.__new__() missing 1 required positional argument: 'y'");
    expectOutput(
        "from typing import NamedTuple, Optional\n"
        "class NT(NamedTuple):\n"
        "    first: int\n"
        "    second: Optional[int] = None\n"
        "    def total(self):\n"
        "        return self.first + (self.second or 0)\n"
        "    @staticmethod\n"
        "    def one():\n"
        "        return 1\n"
        "    @classmethod\n"
        "    def name(cls):\n"
        "        return cls.__name__\n"
        "n = NT(1, 2)\n"
        "print(n, n.total(), NT(4), n.one(), n.name(), hasattr(n, '_asdict'), isinstance(n, tuple), NT._fields)\n",
        "NT(first=1, second=2) 3 NT(first=4, second=None) 1 NT True True ('first', 'second')\n");
}

TEST(VmStdlibData, DequeAndAbstractBaseClasses) {
    expectOutput(
        "from collections import deque\n"
        "q = deque([1, 2, 3], maxlen=3)\n"
        "q.append(4)\n"
        "q.appendleft(0)\n"
        "q.rotate(1)\n"
        "print(q, len(q), list(q), q.popleft(), q.pop(), q)\n",
        "deque([0], maxlen=3) 3 [3, 0, 2] 3 2 deque([0], maxlen=3)\n");
    expectOutput(
        "from collections.abc import Mapping, MutableMapping, Sequence\n"
        "import collections\n"
        "class Store(MutableMapping):\n"
        "    def __init__(self):\n"
        "        self._d = {}\n"
        "    def __getitem__(self, k):\n"
        "        return self._d[k]\n"
        "    def __setitem__(self, k, v):\n"
        "        self._d[k] = v\n"
        "    def __delitem__(self, k):\n"
        "        del self._d[k]\n"
        "    def __iter__(self):\n"
        "        return iter(self._d)\n"
        "    def __len__(self):\n"
        "        return len(self._d)\n"
        "s = Store()\n"
        "s.update({'a': 1}, b=2)\n"
        "print(s.get('a'), s.get('c', 0), 'b' in s, s.pop('b'), s.setdefault('z', 9), sorted(s.items()))\n"
        "print(isinstance({}, Mapping), isinstance(s, Mapping), isinstance([], Mapping), isinstance((), Sequence),\n"
        "      collections.abc.Mapping is Mapping)\n",
        "1 0 True 2 9 [('a', 1), ('z', 9)]\n"
        "True True False True True\n");
}

TEST(VmStdlibData, ClassBodiesRecordTheirAnnotations) {
    expectOutput(
        "from typing import Any, Dict, List, Optional\n"
        "class A:\n"
        "    x: int\n"
        "    y: Optional[List[int]] = None\n"
        "    z = 3\n"
        "print(A.__annotations__, A.y, isinstance([], List), Dict is dict)\n"
        "def f(a: Any) -> Dict[str, int]:\n"
        "    b: undefined_name = 1\n"
        "    return b\n"
        "print(f(0))\n",
        "{'x': <class 'int'>, 'y': <class 'typing.Optional'>} None True True\n"
        "1\n");
}

TEST(VmStdlibData, Dataclasses) {
    expectOutput(
        "from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass\n"
        "from typing import Any, ClassVar\n"
        "@dataclass\n"
        "class Base:\n"
        "    a: int\n"
        "    b: int = 2\n"
        "    counter: ClassVar[int] = 0\n"
        "@dataclass\n"
        "class Derived(Base):\n"
        "    c: Any = field(default_factory=list)\n"
        "    def __post_init__(self):\n"
        "        self.total = self.a + self.b\n"
        "x = Derived(1, c=[3])\n"
        "print(x, x.total, asdict(x), astuple(x), [f.name for f in fields(x)])\n"
        "print(replace(x, a=5), x == Derived(1, 2, [3]), x == Derived(2), is_dataclass(x), is_dataclass(3), Derived(0).c)\n",
        "Derived(a=1, b=2, c=[3]) 3 {'a': 1, 'b': 2, 'c': [3]} (1, 2, [3]) ['a', 'b', 'c']\n"
        "Derived(a=5, b=2, c=[3]) True False True False []\n");
    expectError("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int\n    b: int\nC(1)\n",
                "TypeError: C.__init__() missing 1 required positional argument: 'b'");
    expectError("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: list = []\n",
                "ValueError: mutable default <class 'list'> for field a is not allowed: use default_factory");
    expectError("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 1\n    b: int\n",
                "TypeError: non-default argument 'b' follows default argument 'a'");
}

TEST(VmStdlibData, InspectSignatureOfFunctionsClassesAndBuiltins) {
    expectOutput(
        "import inspect\n"
        "import torch\n"
        "def f(a, b=2, /, c=3, *args, d, e=5, **kw):\n"
        "    pass\n"
        "class C:\n"
        "    def __init__(self, x, y=1):\n"
        "        pass\n"
        "    def m(self, z):\n"
        "        pass\n"
        "sig = inspect.signature(f)\n"
        "print(sig, list(sig.parameters), sig.parameters['e'].default, sig.parameters['d'].kind)\n"
        "print(sig.parameters['d'].default is inspect.Parameter.empty, sig.parameters['args'])\n"
        "print(inspect.signature(C), inspect.signature(C(0).m), inspect.isclass(C), inspect.isfunction(f))\n"
        "print('fused' in inspect.signature(torch.optim.AdamW).parameters, inspect.signature(torch.optim.SGD).parameters['lr'])\n",
        "(a, b=2, /, c=3, *args, d, e=5, **kw) ['a', 'b', 'c', 'args', 'd', 'e', 'kw'] 5 KEYWORD_ONLY\n"
        "True *args\n"
        "(x, y=1) (z) True True\n"
        "True lr=0.001\n");
    expectError("import inspect\ninspect.signature(3)\n", "TypeError: 3 is not a callable object");
}
