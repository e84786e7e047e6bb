// The VM on small scripts: Python semantics of the language core (functions, closures, classes, exceptions,
// iteration, comprehensions, f-strings), checked against what CPython prints.
#include <gtest/gtest.h>

#include "script_support.h"

using vmtest::runScript;

namespace {

void expectOutput(const std::string& source, const std::string& expected) {
    auto run = runScript(source);
    EXPECT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.out, expected) << source;
}

}  // namespace

TEST(VmLanguage, ArithmeticAndPrinting) {
    expectOutput("print(1 + 2, 7 // 2, -7 // 2, 7 % -3, 2 ** 10, 7 / 2, 1.0, 1e-05, 3 * 'ab')\n",
                 "3 3 -4 -2 1024 3.5 1.0 1e-05 ababab\n");
    expectOutput("print(True + 1, 1 == 1.0, 3 < 4 < 5, 'a' < 'b', [1, 2] == [1, 2], (1,), None)\n",
                 "2 True True True True (1,) None\n");
    auto overflow = runScript("print(2 ** 70)\n");
    EXPECT_NE(overflow.error.find("OverflowError: integer result does not fit in 64 bits"), std::string::npos) << overflow.error;
    expectOutput("x = 5\nx += 2\nx *= 3\nprint(x, -x, abs(-2.5), round(2.5), round(3.14159, 2))\n", "21 -21 2.5 2 3.14\n");
}

TEST(VmLanguage, OperatorModuleHasEveryOperator) {
    expectOutput("import operator\n"
                 "print(operator.lshift(1, 3), operator.rshift(16, 2), operator.and_(6, 3), operator.or_(4, 1),\n"
                 "      operator.xor(5, 1), operator.isub(5, 2), operator.ifloordiv(7, 2), operator.ipow(2, 5),\n"
                 "      operator.imod(7, 4), operator.le(2, 2), operator.ne(1, 1))\n"
                 "xs = [1]\n"
                 "ys = operator.iadd(xs, [2])\n"
                 "print(xs, ys is xs)\n",
                 "8 4 2 5 4 3 3 32 3 True False\n[1, 2] True\n");
}

TEST(VmLanguage, FunctionsDefaultsAndKeywords) {
    expectOutput(
        "def f(a, b=2, *args, c, d=4, **kw):\n"
        "    return (a, b, args, c, d, sorted(kw.items()))\n"
        "print(f(1, c=3))\n"
        "print(f(1, 5, 6, 7, c=3, z=9, y=8))\n",
        "(1, 2, (), 3, 4, [])\n(1, 5, (6, 7), 3, 4, [('y', 8), ('z', 9)])\n");
    expectOutput("def g(*a, **k):\n    return len(a), k\nargs = [1, 2]\nprint(g(*args, 3, **{'x': 1}))\n", "(3, {'x': 1})\n");
}

TEST(VmLanguage, ArgumentErrorsUsePythonWording) {
    auto run = runScript("def f(a, b):\n    return a\nf(1)\n");
    EXPECT_FALSE(run.ok);
    EXPECT_NE(run.error.find("TypeError: f() missing 1 required positional argument: 'b'"), std::string::npos) << run.error;
    run = runScript("def f(a):\n    return a\nf(1, 2)\n");
    EXPECT_NE(run.error.find("TypeError: f() takes 1 positional argument but 2 were given"), std::string::npos) << run.error;
    run = runScript("def f(a):\n    return a\nf(1, z=2)\n");
    EXPECT_NE(run.error.find("TypeError: f() got an unexpected keyword argument 'z'"), std::string::npos) << run.error;
}

TEST(VmLanguage, ClosuresNonlocalAndGlobal) {
    expectOutput(
        "def counter():\n"
        "    n = 0\n"
        "    def inc():\n"
        "        nonlocal n\n"
        "        n += 1\n"
        "        return n\n"
        "    return inc\n"
        "c = counter()\nc()\nprint(c())\n"
        "G = 1\n"
        "def setg():\n    global G\n    G = 5\n"
        "setg()\nprint(G)\n"
        "adders = [lambda x, k=k: x + k for k in range(3)]\nprint([a(10) for a in adders])\n",
        "2\n5\n[10, 11, 12]\n");
}

TEST(VmLanguage, ClassesInheritanceSuper) {
    expectOutput(
        "class A:\n"
        "    def __init__(self, x):\n        self.x = x\n"
        "    def get(self):\n        return self.x\n"
        "    def __call__(self, y):\n        return self.x + y\n"
        "class B(A):\n"
        "    def __init__(self, x):\n        super().__init__(x * 2)\n"
        "    def get(self):\n        return super().get() + 1\n"
        "b = B(3)\n"
        "print(b.get(), b(1), isinstance(b, A), type(b).__name__, issubclass(B, A))\n"
        "m = b.get\nprint(m())\n",
        "7 7 True B True\n7\n");
}

TEST(VmLanguage, StaticClassMethodsAndProperties) {
    expectOutput(
        "class C:\n"
        "    base = 10\n"
        "    def __init__(self, v):\n        self.v = v\n"
        "    @staticmethod\n    def twice(x):\n        return 2 * x\n"
        "    @classmethod\n    def make(cls, v):\n        return cls(v + cls.base)\n"
        "    @property\n    def doubled(self):\n        return self.twice(self.v)\n"
        "c = C.make(1)\nprint(c.v, c.doubled, C.twice(4), c.twice(5))\n",
        "11 22 8 10\n");
}

TEST(VmLanguage, ExceptionsTryExceptFinally) {
    expectOutput(
        "def f(x):\n"
        "    try:\n"
        "        if x:\n            raise ValueError('bad ' + str(x))\n"
        "        return 'ok'\n"
        "    except ValueError as e:\n"
        "        return 'caught ' + str(e)\n"
        "    finally:\n"
        "        print('finally', x)\n"
        "print(f(0))\nprint(f(1))\n"
        "try:\n    [1][5]\nexcept (KeyError, IndexError) as e:\n    print(type(e).__name__, e)\n"
        "try:\n    {}['k']\nexcept Exception as e:\n    print(repr(e))\n",
        "finally 0\nok\nfinally 1\ncaught bad 1\nIndexError list index out of range\nKeyError('k')\n");
}

TEST(VmLanguage, UncaughtExceptionPrintsTraceback) {
    auto run = runScript(
        "def inner(x):\n"
        "    return x + 'a'\n"
        "def outer():\n"
        "    return inner(1)\n"
        "outer()\n");
    EXPECT_FALSE(run.ok);
    EXPECT_EQ(run.error,
              "Traceback (most recent call last):\n"
              "  File \"x.py\", line 5, in <module>\n"
              "    outer()\n"
              "  File \"x.py\", line 4, in outer\n"
              "    return inner(1)\n"
              "  File \"x.py\", line 2, in inner\n"
              "    return x + 'a'\n"
              "TypeError: unsupported operand type(s) for +: 'int' and 'str'\n");
}

TEST(VmLanguage, IterationHelpers) {
    expectOutput(
        "d = {'a': 1, 'b': 2}\n"
        "for k, v in d.items():\n    print(k, v)\n"
        "print(list(zip([1, 2, 3], 'ab')), list(enumerate([5, 6], start=1)), list(reversed(range(3))))\n"
        "print(sum(range(5)), min(3, 1, 2), max([4, 9, 2]), sorted([3, 1, 2], reverse=True), any([0, 1]), all([]))\n"
        "print({k: v * 2 for k, v in d.items()}, [x for x in range(6) if x % 2], {x % 3 for x in range(7)})\n"
        "a, *rest = [1, 2, 3]\nprint(a, rest, list(map(lambda x: x * x, [1, 2])), list(filter(None, [0, 1, 2])))\n",
        "a 1\nb 2\n[(1, 'a'), (2, 'b')] [(1, 5), (2, 6)] [2, 1, 0]\n10 1 9 [3, 2, 1] True True\n"
        "{'a': 2, 'b': 4} [1, 3, 5] {0, 1, 2}\n1 [2, 3] [1, 4] [1, 2]\n");
}

TEST(VmLanguage, StringsAndFStrings) {
    expectOutput(
        "x = 3.14159\nn = 42\ns = 'hi'\n"
        "print(f'{x:.2f} {n:5d}|{s:>4}|{s!r} {n:,} {0.25:.1%} {x:e}')\n"
        "print('%d items, %.3f, %s, %5.1f%%' % (3, 0.5, 'x', 12.345), 'n=%d' % 4)\n"
        "print(', '.join(['a', 'b']), 'a b  c'.split(), 'a,b'.split(','), '  t '.strip(), '{} {:.1f}'.format(1, 2.0))\n",
        "3.14    42|  hi|'hi' 42 25.0% 3.141590e+00\n3 items, 0.500, x,  12.3% n=4\na, b ['a', 'b', 'c'] ['a', 'b'] t 1 2.0\n");
}

TEST(VmLanguage, WhileBreakContinueAssert) {
    expectOutput(
        "i = 0\nout = []\n"
        "while True:\n    i += 1\n    if i % 2 == 0:\n        continue\n    if i > 7:\n        break\n    out.append(i)\n"
        "print(out)\n",
        "[1, 3, 5, 7]\n");
    auto run = runScript("assert 1 == 2, 'nope'\n");
    EXPECT_NE(run.error.find("AssertionError: nope"), std::string::npos) << run.error;
}
