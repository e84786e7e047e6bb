// Parser: every expression form, operator precedence and associativity, f-strings and source ranges.
#include <gtest/gtest.h>

#include "frontend_test_support.h"

namespace {

/// The S-expression of `source` parsed as an expression statement, without the (expr ...) wrapper.
std::string expr(const std::string& source, bool ranges = false) {
    std::string text = frontendtest::parseToText(source + "\n", ranges);
    const std::string prefix = ranges ? "(expr@" : "(expr ";
    if (text.rfind(prefix, 0) != 0) return text;
    size_t start = ranges ? text.find(' ') + 1 : prefix.size();
    return text.substr(start, text.size() - start - 2);  // drop ")\n"
}

}  // namespace

TEST(ParserExpressions, Literals) {
    EXPECT_EQ(expr("None"), "None");
    EXPECT_EQ(expr("True"), "True");
    EXPECT_EQ(expr("False"), "False");
    EXPECT_EQ(expr("..."), "...");
    EXPECT_EQ(expr("42"), "42");
    EXPECT_EQ(expr("1e-05"), "1e-05");
    EXPECT_EQ(expr("2.0"), "2.0");
    EXPECT_EQ(expr("'it''s' \"x\""), "'itsx'");
    EXPECT_EQ(expr("\"it's\""), "\"it's\"");
}

TEST(ParserExpressions, ArithmeticPrecedenceAndAssociativity) {
    EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
    EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
    EXPECT_EQ(expr("a ** b ** c"), "(** a (** b c))");
    EXPECT_EQ(expr("-x ** 2"), "(- (** x 2))");
    EXPECT_EQ(expr("x ** -1"), "(** x (- 1))");
    EXPECT_EQ(expr("a @ b / c // d % e"), "(% (// (/ (@ a b) c) d) e)");
    EXPECT_EQ(expr("~a + +b - -c"), "(- (+ (~ a) (+ b)) (- c))");
    EXPECT_EQ(expr("a | b ^ c & d << e >> f + g"), "(| a (^ b (& c (>> (<< d e) (+ f g)))))");
    EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
}

TEST(ParserExpressions, ComparisonsAndBooleans) {
    EXPECT_EQ(expr("a < b <= c == d != e > f >= g"), "(compare a < b <= c == d != e > f >= g)");
    EXPECT_EQ(expr("a in b not in c is d is not e"), "(compare a in b not in c is d is not e)");
    EXPECT_EQ(expr("not a == b"), "(not (compare a == b))");
    EXPECT_EQ(expr("a or b and not c or d"), "(or a (and b (not c)) d)");
    EXPECT_EQ(expr("a and b and c"), "(and a b c)");
    EXPECT_EQ(expr("x if c else y if d else z"), "(if-expr c x (if-expr d y z))");
    EXPECT_EQ(expr("a | b < c & d"), "(compare (| a b) < (& c d))");
}

TEST(ParserExpressions, CallsAttributesSubscripts) {
    EXPECT_EQ(expr("f()"), "(call f)");
    EXPECT_EQ(expr("f(a, *b, c=1, **d)"), "(call f a (* b) (kw c 1) (** d))");
    EXPECT_EQ(expr("f(*a, *b, k=1, *c, **d, e=2)"), "(call f (* a) (* b) (* c) (kw k 1) (** d) (kw e 2))");
    EXPECT_EQ(expr("x.sum(dim=1).item()"), "(call (. (call (. x sum) (kw dim 1)) item))");
    EXPECT_EQ(expr("sum(x for x in xs)"), "(call sum (genexpr x (for x xs)))");
    EXPECT_EQ(expr("m.fc1.weight.grad"), "(. (. (. m fc1) weight) grad)");
    EXPECT_EQ(expr("x[0]"), "(subscript x 0)");
    EXPECT_EQ(expr("x[-1]"), "(subscript x (- 1))");
    EXPECT_EQ(expr("x[:, None, 1:3]"), "(subscript x (tuple (slice _ _ _) None (slice 1 3 _)))");
    EXPECT_EQ(expr("x[::2, ..., a:]"), "(subscript x (tuple (slice _ _ 2) ... (slice a _ _)))");
    EXPECT_EQ(expr("x[1:-1:-2]"), "(subscript x (slice 1 (- 1) (- 2)))");
    EXPECT_EQ(expr("x[a, b]"), "(subscript x (tuple a b))");
    EXPECT_EQ(expr("x[a,]"), "(subscript x (tuple a))");
    EXPECT_EQ(expr("shape[0]"), "(subscript shape 0)");
}

TEST(ParserExpressions, Displays) {
    EXPECT_EQ(expr("()"), "(tuple)");
    EXPECT_EQ(expr("(1,)"), "(tuple 1)");
    EXPECT_EQ(expr("(1, *a, 2)"), "(tuple 1 (* a) 2)");
    EXPECT_EQ(expr("[]"), "(list)");
    EXPECT_EQ(expr("[1, *a, [2]]"), "(list 1 (* a) (list 2))");
    EXPECT_EQ(expr("{}"), "(dict)");
    EXPECT_EQ(expr("{'a': 1, **d, 'b': 2,}"), "(dict ('a' 1) (** d) ('b' 2))");
    EXPECT_EQ(expr("{**d}"), "(dict (** d))");
    EXPECT_EQ(expr("{1, *s}"), "(set 1 (* s))");
    EXPECT_EQ(expr("{1}"), "(set 1)");
}

TEST(ParserExpressions, Comprehensions) {
    EXPECT_EQ(expr("[x * y for x in xs for y in ys if x if y > 0]"),
              "(listcomp (* x y) (for x xs) (for y ys (if x) (if (compare y > 0))))");
    EXPECT_EQ(expr("{k: v for k, v in d.items()}"), "(dictcomp k v (for (tuple k v) (call (. d items))))");
    EXPECT_EQ(expr("{x for x in s}"), "(setcomp x (for x s))");
    EXPECT_EQ(expr("(x for x in s)"), "(genexpr x (for x s))");
    EXPECT_EQ(expr("[a if c else b for a, b in z]"), "(listcomp (if-expr c a b) (for (tuple a b) z))");
    EXPECT_EQ(expr("{k: dict(v) for k, v in copy.deepcopy(counters).items()}"),
              "(dictcomp k (call dict v) (for (tuple k v) (call (. (call (. copy deepcopy) counters) items))))");
}

TEST(ParserExpressions, Lambdas) {
    EXPECT_EQ(expr("lambda: 0"), "(lambda (params) 0)");
    EXPECT_EQ(expr("lambda x, y=2, *a, k, **kw: x + y"), "(lambda (params x (= y 2) *a k **kw) (+ x y))");
    EXPECT_EQ(expr("f(key=lambda t: t[1])"), "(call f (kw key (lambda (params t) (subscript t 1))))");
    EXPECT_EQ(expr("lambda x: x if x else -x"), "(lambda (params x) (if-expr x x (- x)))");
}

TEST(ParserExpressions, FStrings) {
    EXPECT_EQ(expr("f'a{x}b'"), "(f-string 'a' (format x) 'b')");
    EXPECT_EQ(expr("f'{x!r}{y!s:>10}{z:.{p}f}'"),
              "(f-string (format x !r) (format y !s (f-string '>10')) (format z (f-string '.' (format p) 'f')))");
    EXPECT_EQ(expr("f'{x = }'"), "(f-string 'x = ' (format x !r))");
    EXPECT_EQ(expr("f'{x=:.2f}'"), "(f-string 'x=' (format x (f-string '.2f')))");
    EXPECT_EQ(expr("'a' f'{b}' 'c'"), "(f-string 'a' (format b) 'c')");
    EXPECT_EQ(expr("f'{{literal}}'"), "(f-string '{literal}')");
    EXPECT_EQ(expr("f\"{type(e).__name__}\""), "(f-string (format (. (call type e) __name__)))");
    EXPECT_EQ(expr("f'{a[\"k\"]} {f\"{b}\"}'"),
              "(f-string (format (subscript a 'k')) ' ' (format (f-string (format b))))");
    EXPECT_EQ(expr("f'{a, b}'"), "(f-string (format (tuple a b)))");
    EXPECT_EQ(expr("f'{x for x in y}'"), "(f-string (format (genexpr x (for x y))))");
    EXPECT_EQ(expr("rf'\\d{x}'"), "(f-string '\\\\d' (format x))");
}

TEST(ParserExpressions, FStringFieldsCarryTheirRealPositions) {
    EXPECT_EQ(expr("f'ab{x + 1}'", true),
              "(f-string@1:1-1:13 'ab'@1:1-1:13 (format@1:6-1:11 (+@1:6-1:11 x@1:6-1:7 1@1:10-1:11)))");
    EXPECT_EQ(expr("f'''\n{\n  y}'''", true), "(f-string@1:1-3:8 '\\n'@1:1-3:8 (format@3:3-3:4 y@3:3-3:4))");
}

TEST(ParserExpressions, RangesOfNestedNodes) {
    EXPECT_EQ(expr("torch.sin(x) * 2.0", true),
              "(*@1:1-1:19 (call@1:1-1:13 (.@1:1-1:10 torch@1:1-1:6 sin) x@1:11-1:12) 2.0@1:16-1:19)");
    EXPECT_EQ(expr("x[:, 1]", true), "(subscript@1:1-1:8 x@1:1-1:2 (tuple@1:3-1:7 (slice@1:3-1:4 _ _ _) 1@1:6-1:7))");
    EXPECT_EQ(expr("(a, b)", true), "(tuple@1:1-1:7 a@1:2-1:3 b@1:5-1:6)");
    EXPECT_EQ(expr("[i for i in r]", true), "(listcomp@1:1-1:15 i@1:2-1:3 (for@1:4-1:14 i@1:8-1:9 r@1:13-1:14))");
}

TEST(ParserExpressions, MultiLineExpressionsInBrackets) {
    EXPECT_EQ(expr("f(\n    a,\n    b=[1,\n       2],\n)"), "(call f a (kw b (list 1 2)))");
}
