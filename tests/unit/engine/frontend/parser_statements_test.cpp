// Parser: every statement of the subset, checked through the S-expression printer.
#include <gtest/gtest.h>

#include "frontend_test_support.h"

using frontendtest::parseStatement;
using frontendtest::parseToText;

TEST(ParserStatements, Assignments) {
    EXPECT_EQ(parseStatement("x = 1\n"), "(= x 1)");
    EXPECT_EQ(parseStatement("a = b = f(x)\n"), "(= a b (call f x))");
    EXPECT_EQ(parseStatement("a, b = b, a\n"), "(= (tuple a b) (tuple b a))");
    EXPECT_EQ(parseStatement("(a, [b, c]) = x\n"), "(= (tuple a (list b c)) x)");
    EXPECT_EQ(parseStatement("first, *rest = xs\n"), "(= (tuple first (* rest)) xs)");
    EXPECT_EQ(parseStatement("[*init, last] = xs\n"), "(= (list (* init) last) xs)");
    EXPECT_EQ(parseStatement("self.w, d[k] = 1, 2\n"), "(= (tuple (. self w) (subscript d k)) (tuple 1 2))");
    EXPECT_EQ(parseStatement("x = *a, b\n"), "(= x (tuple (* a) b))");
    EXPECT_EQ(parseStatement("t = 1,\n"), "(= t (tuple 1))");
}

TEST(ParserStatements, AugmentedAssignments) {
    EXPECT_EQ(
        parseToText("x += 1\nx -= 1\nx *= 2\nx /= 2\nx //= 2\nx %= 2\nx **= 2\nx @= m\n"
                    "x &= 1\nx |= 1\nx ^= 1\nx <<= 1\nx >>= 1\np.grad -= 0.1 * g\nd[k] += 1\n"),
        "(+= x 1)\n(-= x 1)\n(*= x 2)\n(/= x 2)\n(//= x 2)\n(%= x 2)\n(**= x 2)\n(@= x m)\n"
        "(&= x 1)\n(|= x 1)\n(^= x 1)\n(<<= x 1)\n(>>= x 1)\n(-= (. p grad) (* 0.1 g))\n(+= (subscript d k) 1)\n");
}

TEST(ParserStatements, AnnotatedAssignments) {
    EXPECT_EQ(parseStatement("x: int = 5\n"), "(ann x int 5)");
    EXPECT_EQ(parseStatement("self.y: Optional[Tensor]\n"), "(ann (. self y) (subscript Optional Tensor))");
}

TEST(ParserStatements, SimpleStatements) {
    EXPECT_EQ(parseToText("pass\ndel a, b[0], c.d\nassert x, 'msg'\nassert y\nraise\nraise E\nraise E('m') from err\n"),
              "(pass)\n(del a (subscript b 0) (. c d))\n(assert x 'msg')\n(assert y)\n(raise)\n(raise E)\n"
              "(raise (call E 'm') (from err))\n");
    EXPECT_EQ(parseToText("global a, b\nx = 1; y = 2;\nf(x)\n"), "(global a b)\n(= x 1)\n(= y 2)\n(expr (call f x))\n");
}

TEST(ParserStatements, Imports) {
    EXPECT_EQ(
        parseToText("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport os, math\n"
                    "from torch import nn\nfrom typing import List, Optional as Opt\nfrom a.b import (c,\n d,)\n"),
        "(import torch)\n(import (as torch.nn nn))\n(import (as torch.nn.functional F))\n(import os math)\n"
        "(from torch import nn)\n(from typing import List (as Optional Opt))\n(from a.b import c d)\n");
}

TEST(ParserStatements, IfElifElse) {
    EXPECT_EQ(parseStatement("if a:\n    x\nelif b:\n    y\nelif c: z\nelse:\n    w\n"),
              "(if a (body (expr x)) (else (if b (body (expr y)) (else (if c (body (expr z)) (else (expr w)))))))");
    EXPECT_EQ(parseStatement("if a: x = 1; y = 2\n"), "(if a (body (= x 1) (= y 2)))");
}

TEST(ParserStatements, Loops) {
    EXPECT_EQ(parseStatement("for i in range(3):\n    continue\nelse:\n    pass\n"),
              "(for i (call range 3) (body (continue)) (else (pass)))");
    EXPECT_EQ(parseStatement("for i, (k, v) in enumerate(d.items()):\n    break\n"),
              "(for (tuple i (tuple k v)) (call enumerate (call (. d items))) (body (break)))");
    EXPECT_EQ(parseStatement("for x in 1, 2:\n    pass\n"), "(for x (tuple 1 2) (body (pass)))");
    EXPECT_EQ(parseStatement("for a, *b in zip(x, y):\n    pass\n"),
              "(for (tuple a (* b)) (call zip x y) (body (pass)))");
    EXPECT_EQ(parseStatement("for self.i in xs:\n    pass\n"), "(for (. self i) xs (body (pass)))");
    EXPECT_EQ(parseStatement("while x < 3:\n    x += 1\n    if x: break\nelse:\n    y\n"),
              "(while (compare x < 3) (body (+= x 1) (if x (body (break)))) (else (expr y)))");
}

TEST(ParserStatements, With) {
    EXPECT_EQ(parseStatement("with torch.no_grad():\n    pass\n"),
              "(with (item (call (. torch no_grad))) (body (pass)))");
    EXPECT_EQ(parseStatement("with open(a) as f, lock:\n    pass\n"),
              "(with (item (call open a) f) (item lock) (body (pass)))");
    EXPECT_EQ(parseStatement("with (open(a) as f, open(b) as g,):\n    pass\n"),
              "(with (item (call open a) f) (item (call open b) g) (body (pass)))");
    EXPECT_EQ(parseStatement("with (a, b) as (c, d):\n    pass\n"),
              "(with (item (tuple a b) (tuple c d)) (body (pass)))");
    EXPECT_EQ(parseStatement("with (yes):\n    pass\n"), "(with (item yes) (body (pass)))");
}

TEST(ParserStatements, Try) {
    EXPECT_EQ(
        parseStatement("try:\n    a\nexcept ValueError as e:\n    b\nexcept (A, B):\n    c\nexcept:\n    d\n"
                       "else:\n    e\nfinally:\n    f\n"),
        "(try (body (expr a)) (except ValueError (as e) (expr b)) (except (tuple A B) (expr c)) (except (expr d)) "
        "(else (expr e)) (finally (expr f)))");
    EXPECT_EQ(parseStatement("try:\n    a\nfinally:\n    b\n"), "(try (body (expr a)) (finally (expr b)))");
}

TEST(ParserStatements, FunctionDefinitions) {
    EXPECT_EQ(parseStatement("def f():\n    return\n"), "(def f (params) (body (return)))");
    EXPECT_EQ(parseStatement("def f(a, b=1, *args, c, d=2, **kw):\n    return a, b\n"),
              "(def f (params a (= b 1) *args c (= d 2) **kw) (body (return (tuple a b))))");
    EXPECT_EQ(parseStatement("def f(a, /, b, *, c):\n    pass\n"), "(def f (params a / b * c) (body (pass)))");
    EXPECT_EQ(parseStatement("def f(x: torch.Tensor, n: int = 3) -> Tensor:\n    ...\n"),
              "(def f (params (: x (. torch Tensor)) (= (: n int) 3)) (returns Tensor) (body (expr ...)))");
    EXPECT_EQ(parseStatement("def f(a,):\n    '''doc'''\n    return 1\n"),
              "(def f (params a) (body (expr 'doc') (return 1)))");
}

TEST(ParserStatements, Decorators) {
    EXPECT_EQ(parseStatement("@torch.compile\ndef f(x):\n    return x\n"),
              "(def f (params x) (decorators (. torch compile)) (body (return x)))");
    EXPECT_EQ(
        parseStatement("@torch.compile(fullgraph=True, dynamic=True)\n@torch.compiler.disable\ndef f(x):\n    pass\n"),
        "(def f (params x) (decorators (call (. torch compile) (kw fullgraph True) (kw dynamic True)) "
        "(. (. torch compiler) disable)) (body (pass)))");
    EXPECT_EQ(parseStatement("@dataclass\nclass C:\n    pass\n"), "(class C (decorators dataclass) (body (pass)))");
}

TEST(ParserStatements, NestedFunctionsAndClosures) {
    EXPECT_EQ(parseStatement(
                  "def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n += 1\n        return n\n"
                  "    return inner\n"),
              "(def outer (params) (body (= n 0) (def inner (params) (body (nonlocal n) (+= n 1) (return n))) (return "
              "inner)))");
}

TEST(ParserStatements, Classes) {
    EXPECT_EQ(parseStatement("class MLP(nn.Module):\n"
                             "    def __init__(self, d):\n"
                             "        super().__init__()\n"
                             "        self.fc = nn.Linear(d, d)\n"
                             "    def forward(self, x):\n"
                             "        return self.fc(x)\n"),
              "(class MLP (base (. nn Module)) (body "
              "(def __init__ (params self d) (body (expr (call (. (call super) __init__))) (= (. self fc) (call (. nn "
              "Linear) d d)))) "
              "(def forward (params self x) (body (return (call (. self fc) x))))))");
    EXPECT_EQ(parseStatement("class A:\n    x = 1\n"), "(class A (body (= x 1)))");
    EXPECT_EQ(parseStatement("class A():\n    pass\n"), "(class A (body (pass)))");
    EXPECT_EQ(parseStatement("class Block(Mixin, nn.Module):\n    pass\n"), "(class Block (base Mixin (. nn Module)) (body (pass)))");
}

TEST(ParserStatements, SourceRangesCoverTheWholeStatement) {
    EXPECT_EQ(parseToText("if x:\n    y = 1\n", true),
              "(if@1:1-2:10 x@1:4-1:5 (body (=@2:5-2:10 y@2:5-2:6 1@2:9-2:10)))\n");
    EXPECT_EQ(parseToText("@d\ndef f(): pass\n", true),
              "(def@2:1-2:14 f (params) (decorators d@1:2-1:3) (body (pass@2:10-2:14)))\n");
}

TEST(ParserStatements, ExampleProgramShapes) {
    EXPECT_EQ(parseToText("with torch.no_grad():\n    for p in model.parameters():\n        p -= 0.1 * p.grad\n        "
                          "p.grad = None\n"),
              "(with (item (call (. torch no_grad))) (body (for p (call (. model parameters)) (body (-= p (* 0.1 (. p "
              "grad))) "
              "(= (. p grad) None)))))\n");
    EXPECT_EQ(parseToText("if __name__ == '__main__':\n    main('cpu')\n"),
              "(if (compare __name__ == '__main__') (body (expr (call main 'cpu'))))\n");
}
