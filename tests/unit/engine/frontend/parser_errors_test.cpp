// Error messages: file:line:col, the source line, a caret under the column, and what was expected; valid Python
// outside the subset is named as unsupported.
#include <gtest/gtest.h>

#include "frontend_test_support.h"

using frontendtest::compileError;

TEST(ParserErrors, ExpectedTokens) {
    EXPECT_EQ(compileError("if x > 0\n    y = 1\n"), "t.py:1:9: error: expected ':'\nif x > 0\n        ^\n");
    EXPECT_EQ(compileError("def f(x)\n    return x\n"), "t.py:1:9: error: expected ':'\ndef f(x)\n        ^\n");
    EXPECT_EQ(compileError("x = \n"), "t.py:1:4: error: expected an expression\nx = \n   ^\n");
    EXPECT_EQ(compileError("f(a b)\n"), "t.py:1:5: error: expected ')'\nf(a b)\n    ^\n");
    EXPECT_EQ(compileError("return x y\n"), "t.py:1:1: error: 'return' outside function\nreturn x y\n^\n");
    EXPECT_EQ(compileError("x = 1 2\n"),
              "t.py:1:7: error: invalid syntax: expected end of line after the statement, found number '2'\nx = 1 2\n  "
              "    ^\n");
    EXPECT_EQ(compileError("y = a if b\n"),
              "t.py:1:11: error: expected 'else' after 'if' expression\ny = a if b\n          ^\n");
    EXPECT_EQ(compileError("import torch.\n"), "t.py:1:14: error: expected 'name'\nimport torch.\n             ^\n");
    EXPECT_EQ(compileError("try:\n    x\ny = 1\n"),
              "t.py:3:1: error: expected 'except' or 'finally' block\ny = 1\n^\n");
    EXPECT_EQ(compileError("@decorator\nx = 1\n"),
              "t.py:2:1: error: expected 'def' or 'class' after a decorator\nx = 1\n^\n");
}

TEST(ParserErrors, Indentation) {
    EXPECT_EQ(compileError("if x:\ny = 1\n"),
              "t.py:2:1: error: expected an indented block after 'if' statement on line 1\ny = 1\n^\n");
    EXPECT_EQ(compileError("def f():\n\n# c\nreturn\n"),
              "t.py:4:1: error: expected an indented block after function definition on line 1\nreturn\n^\n");
    EXPECT_EQ(compileError("for i in x:\n    pass\nelse:\npass\n"),
              "t.py:4:1: error: expected an indented block after 'else' statement on line 3\npass\n^\n");
    EXPECT_EQ(compileError("x = 1\n    y = 2\n"), "t.py:2:5: error: unexpected indent\n    y = 2\n    ^\n");
}

TEST(ParserErrors, InvalidTargets) {
    EXPECT_EQ(compileError("f() = 1\n"), "t.py:1:1: error: cannot assign to function call\nf() = 1\n^\n");
    EXPECT_EQ(compileError("(a.b := 1)\n"), "t.py:1:2: error: cannot use assignment expressions with attribute\n(a.b := 1)\n ^\n");
    EXPECT_EQ(compileError("x, 1 = y\n"), "t.py:1:4: error: cannot assign to literal\nx, 1 = y\n   ^\n");
    EXPECT_EQ(compileError("None = 1\n"), "t.py:1:1: error: cannot assign to None\nNone = 1\n^\n");
    EXPECT_EQ(compileError("a < b = 1\n"), "t.py:1:1: error: cannot assign to comparison\na < b = 1\n^\n");
    EXPECT_EQ(compileError("for f() in x:\n    pass\n"),
              "t.py:1:5: error: cannot assign to function call\nfor f() in x:\n    ^\n");
    EXPECT_EQ(compileError("a, b += 1\n"),
              "t.py:1:1: error: 'tuple' is an illegal expression for augmented assignment\na, b += 1\n^\n");
    EXPECT_EQ(compileError("a + 1 += 1\n"),
              "t.py:1:1: error: 'expression' is an illegal expression for augmented assignment\na + 1 += 1\n^\n");
    EXPECT_EQ(compileError("del f()\n"), "t.py:1:5: error: cannot delete function call\ndel f()\n    ^\n");
    EXPECT_EQ(compileError("a, b: int\n"),
              "t.py:1:1: error: only single target (not tuple) can be annotated\na, b: int\n^\n");
    EXPECT_EQ(compileError("[x for f() in y]\n"),
              "t.py:1:8: error: cannot assign to function call\n[x for f() in y]\n       ^\n");
    EXPECT_EQ(compileError("with a as f():\n    pass\n"),
              "t.py:1:11: error: cannot assign to function call\nwith a as f():\n          ^\n");
}

TEST(ParserErrors, StarredExpressions) {
    EXPECT_EQ(compileError("*a = b\n"),
              "t.py:1:1: error: starred assignment target must be in a list or tuple\n*a = b\n^\n");
    EXPECT_EQ(compileError("*a, *b = c\n"),
              "t.py:1:5: error: multiple starred expressions in assignment\n*a, *b = c\n    ^\n");
    EXPECT_EQ(compileError("x = *a\n"), "t.py:1:5: error: can't use starred expression here\nx = *a\n    ^\n");
    EXPECT_EQ(compileError("*a\n"), "t.py:1:1: error: can't use starred expression here\n*a\n^\n");
    EXPECT_EQ(compileError("print((*a))\n"),
              "t.py:1:8: error: can't use starred expression here\nprint((*a))\n       ^\n");
    EXPECT_EQ(compileError("def f(y):\n    return * y\n"),
              "t.py:2:12: error: can't use starred expression here\n    return * y\n           ^\n");
    EXPECT_EQ(compileError("for x in *a:\n    pass\n"),
              "t.py:1:10: error: can't use starred expression here\nfor x in *a:\n         ^\n");
    EXPECT_EQ(compileError("x += *a\n"), "t.py:1:6: error: can't use starred expression here\nx += *a\n     ^\n");
    EXPECT_EQ(compileError("*a += 1\n"),
              "t.py:1:1: error: 'starred' is an illegal expression for augmented assignment\n*a += 1\n^\n");
}

TEST(ParserErrors, CallArguments) {
    EXPECT_EQ(compileError("f(a=1, b)\n"),
              "t.py:1:8: error: positional argument follows keyword argument\nf(a=1, b)\n       ^\n");
    EXPECT_EQ(compileError("f(**k, b)\n"),
              "t.py:1:8: error: positional argument follows keyword argument unpacking\nf(**k, b)\n       ^\n");
    EXPECT_EQ(
        compileError("f(**k, *a)\n"),
        "t.py:1:8: error: iterable argument unpacking follows keyword argument unpacking\nf(**k, *a)\n       ^\n");
    EXPECT_EQ(compileError("f(a=1, a=2)\n"), "t.py:1:8: error: keyword argument repeated: a\nf(a=1, a=2)\n       ^\n");
    EXPECT_EQ(compileError("f(x for x in y, 1)\n"),
              "t.py:1:3: error: Generator expression must be parenthesized\nf(x for x in y, 1)\n  ^\n");
    EXPECT_EQ(compileError("f(a.b=1)\n"),
              "t.py:1:3: error: expression cannot contain assignment, perhaps you meant \"==\"?\nf(a.b=1)\n  ^\n");
}

TEST(ParserErrors, Parameters) {
    EXPECT_EQ(compileError("def f(a=1, b):\n    pass\n"),
              "t.py:1:12: error: parameter without a default follows parameter with a default\ndef f(a=1, b):\n        "
              "   ^\n");
    EXPECT_EQ(compileError("def f(a, a):\n    pass\n"),
              "t.py:1:10: error: duplicate argument 'a' in function definition\ndef f(a, a):\n         ^\n");
    EXPECT_EQ(compileError("def f(*):\n    pass\n"),
              "t.py:1:7: error: named arguments must follow bare *\ndef f(*):\n      ^\n");
    EXPECT_EQ(compileError("def f(**k, a):\n    pass\n"),
              "t.py:1:12: error: arguments cannot follow var-keyword argument\ndef f(**k, a):\n           ^\n");
}

TEST(ParserErrors, MisplacedStatements) {
    EXPECT_EQ(compileError("break\n"), "t.py:1:1: error: 'break' outside loop\nbreak\n^\n");
    EXPECT_EQ(compileError("while x:\n    def f():\n        continue\n"),
              "t.py:3:9: error: 'continue' not properly in loop\n        continue\n        ^\n");
    EXPECT_EQ(compileError("for x in y:\n    pass\nelse:\n    break\n"),
              "t.py:4:5: error: 'break' outside loop\n    break\n    ^\n");
    EXPECT_EQ(compileError("class C:\n    return 1\n"),
              "t.py:2:5: error: 'return' outside function\n    return 1\n    ^\n");
    EXPECT_EQ(compileError("try:\n    a\nexcept:\n    b\nexcept E:\n    c\n"),
              "t.py:3:1: error: default 'except:' must be last\nexcept:\n^\n");
    EXPECT_EQ(compileError("try:\n    a\nexcept A, B:\n    c\n"),
              "t.py:3:8: error: multiple exception types must be parenthesized\nexcept A, B:\n       ^\n");
}

TEST(ParserErrors, ScopeErrorsUsePythonsWording) {
    EXPECT_EQ(compileError("nonlocal x\n"),
              "t.py:1:1: error: nonlocal declaration not allowed at module level\nnonlocal x\n^\n");
    EXPECT_EQ(compileError("def f():\n    nonlocal x\n"),
              "t.py:2:5: error: no binding for nonlocal 'x' found\n    nonlocal x\n    ^\n");
    EXPECT_EQ(compileError("def f():\n    x = 1\n    global x\n"),
              "t.py:3:5: error: name 'x' is assigned to before global declaration\n    global x\n    ^\n");
    EXPECT_EQ(compileError("def f():\n    print(x)\n    global x\n"),
              "t.py:3:5: error: name 'x' is used prior to global declaration\n    global x\n    ^\n");
    EXPECT_EQ(compileError("def f(x):\n    global x\n"),
              "t.py:2:5: error: name 'x' is parameter and global\n    global x\n    ^\n");
    EXPECT_EQ(compileError("class C:\n    y = 1\n    def m(self):\n        nonlocal y\n"),
              "t.py:4:9: error: no binding for nonlocal 'y' found\n        nonlocal y\n        ^\n");
}

TEST(ParserErrors, UnsupportedSyntaxIsNamed) {
    auto unsupported = [](const std::string& source) {
        std::string rendered = compileError(source);
        size_t start = rendered.find("error: ") + 7;
        return rendered.substr(start, rendered.find('\n') - start);
    };
    // Generators are in the subset; misplaced yields get Python's errors.
    EXPECT_EQ(unsupported("yield 1\n"), "'yield' outside function");
    EXPECT_EQ(unsupported("class C:\n    x = yield\n"), "'yield' outside function");
    EXPECT_EQ(unsupported("def g(xs):\n    return [(yield x) for x in xs]\n"), "'yield' inside list comprehension");
    EXPECT_EQ(unsupported("def g(xs):\n    return ((yield from x) for x in xs)\n"), "'yield from' inside generator expression");
    EXPECT_EQ(unsupported("def g():\n    (yield 1) = 2\n"), "cannot assign to yield expression");
    EXPECT_EQ(unsupported("async def f():\n    pass\n"),
              "unsupported syntax: 'async' (coroutines are not in the cwb subset)");
    EXPECT_EQ(unsupported("def f():\n    await g()\n"),
              "unsupported syntax: 'await' (coroutines are not in the cwb subset)");
    EXPECT_EQ(unsupported("@d\nasync def f():\n    pass\n"),
              "unsupported syntax: 'async' (coroutines are not in the cwb subset)");
    EXPECT_EQ(unsupported("x = [i async for i in y]\n"),
              "unsupported syntax: 'async' (coroutines are not in the cwb subset)");
    EXPECT_EQ(unsupported("match x:\n    case 1:\n        pass\n"),
              "unsupported syntax: 'match' (match statements are not in the cwb subset)");
    EXPECT_EQ(unsupported("match (x, y):\n    case _:\n        pass\n"),
              "unsupported syntax: 'match' (match statements are not in the cwb subset)");
    EXPECT_EQ(unsupported("try:\n    a\nexcept* E:\n    b\n"),
              "unsupported syntax: 'except*' (exception groups are not in the cwb subset)");
    EXPECT_EQ(unsupported("type Vec = list[float]\n"),
              "unsupported syntax: 'type' alias statement (type aliases are not in the cwb subset)");
    EXPECT_EQ(unsupported("def f[T](x: T):\n    pass\n"),
              "unsupported syntax: type parameters (generics are not in the cwb subset)");
    EXPECT_EQ(unsupported("class C(A, *bases):\n    pass\n"),
              "unsupported syntax: starred base class (a class names its bases one by one in the cwb subset)");
    EXPECT_EQ(unsupported("class C(A, total=False):\n    pass\n"),
              "unsupported syntax: class keyword arguments (`metaclass=` is the only class keyword in the cwb subset)");
    EXPECT_EQ(unsupported("from . import x\n"),
              "unsupported syntax: relative import (imports are absolute in the cwb subset)");
    EXPECT_EQ(unsupported("from torch import *\n"),
              "unsupported syntax: 'import *' (star imports are not in the cwb subset)");
    EXPECT_EQ(unsupported("x = b'\\x00'\n"), "unsupported syntax: bytes literal (bytes are not in the cwb subset)");
    EXPECT_EQ(unsupported("z = 2 + 3j\n"),
              "unsupported syntax: imaginary number (complex numbers are not in the cwb subset)");
    EXPECT_EQ(unsupported("x[*idx]\n"),
              "unsupported syntax: starred subscript (unpack into a tuple first in the cwb subset)");
}

TEST(ParserErrors, SoftKeywordsStayUsableAsNames) {
    EXPECT_EQ(compileError("match = re.match(p, s)\nmatch.group(1)\ntype = 3\nprint(type)\ncase = match\n"),
              "no error");
    EXPECT_EQ(compileError("match(a, b)\n"), "no error");
}

TEST(ParserErrors, CaretAlignsUnderTabsAndNonAsciiText) {
    EXPECT_EQ(compileError("if x:\n\ty = 'é' +\n"),
              "t.py:2:11: error: expected an expression\n\ty = 'é' +\n\t         ^\n");
}

TEST(ParserErrors, TheFileNameIsTheOneGiven) {
    EXPECT_EQ(compileError("x = (\n", "models/net.py"),
              "models/net.py:1:5: error: '(' was never closed\nx = (\n    ^\n");
}
