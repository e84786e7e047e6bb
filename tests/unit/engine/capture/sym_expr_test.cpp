// Integer expressions over a trace's symbols (capture/sym_expr.h): Python's floor semantics for // and % on negative
// values (a guard must agree with the eager comparison), the folding sympy does, and the guard text.
#include <gtest/gtest.h>

#include "capture/sym_expr.h"

namespace {

using eng::capture::Source;
using eng::capture::SymExpr;
using eng::capture::SymExprRef;
using B = eng::ops::BinaryOperator;

std::optional<int64_t> at(const SymExprRef& e, int64_t value) {
    return e->evaluate([value](const SymExpr&) { return std::optional<int64_t>(value); });
}

TEST(SymExpr, FloorDivisionAndModuloFollowPython) {
    SymExprRef n = SymExpr::symbol(Source::local("n", 0), -1, 7);
    SymExprRef div = SymExpr::binary(B::FloorDivide, n, SymExpr::constant(2));
    SymExprRef mod = SymExpr::binary(B::Remainder, n, SymExpr::constant(3));
    EXPECT_EQ(at(div, 7), 3);
    EXPECT_EQ(at(div, -7), -4);  // -7 // 2 in Python
    EXPECT_EQ(at(mod, -7), 2);   // -7 % 3 in Python
    EXPECT_EQ(at(SymExpr::binary(B::Remainder, n, SymExpr::constant(-3)), 7), -2);
    EXPECT_EQ(div->hint(), 3);
    // A zero divisor has no value: the guard fails (recompiles) rather than deciding anything.
    EXPECT_EQ(at(SymExpr::binary(B::FloorDivide, SymExpr::constant(4), SymExpr::binary(B::Subtract, n, n)), 3), std::nullopt);
}

TEST(SymExpr, OffsetsCombineAndTextNamesTheSymbol) {
    SymExprRef size = SymExpr::symbol(Source::local("x", 0), 0, 6);
    SymExprRef e = size;
    for (int i = 0; i < 3; ++i) e = SymExpr::binary(B::Subtract, e, SymExpr::constant(1));
    EXPECT_EQ(e->text(), "L['x'].size()[0] - 3");
    EXPECT_EQ(at(e, 3), 0);
    EXPECT_EQ(SymExpr::binary(B::Add, e, SymExpr::constant(3))->text(), "L['x'].size()[0]");
    EXPECT_EQ(SymExpr::binary(B::Multiply, SymExpr::constant(1), size)->text(), "L['x'].size()[0]");
    EXPECT_EQ(SymExpr::binary(B::Remainder, SymExpr::negate(size), SymExpr::constant(4))->text(), "(-L['x'].size()[0]) % 4");
    EXPECT_EQ(SymExpr::binary(B::Multiply, SymExpr::constant(3), SymExpr::constant(4))->kind, SymExpr::Kind::Constant);
    // Only the operators an expression keeps: a true division or a shift has none.
    EXPECT_EQ(SymExpr::binary(B::TrueDivide, size, SymExpr::constant(2)), nullptr);
    EXPECT_EQ(SymExpr::binary(B::LeftShift, size, SymExpr::constant(1)), nullptr);
    std::vector<const SymExpr*> symbols = SymExpr::binary(B::Add, size, SymExpr::binary(B::Multiply, size, SymExpr::symbol(Source::local("n", 1), -1, 2)))->symbols();
    ASSERT_EQ(symbols.size(), 2u);
    EXPECT_EQ(symbols[1]->symbolName(), "L['n']");
}

}  // namespace
