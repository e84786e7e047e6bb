// Every unary and binary row of ops/unary_math.def and ops/elementwise.def, for tests that run each eager kernel.
#pragma once

#include "tensor/pointwise.h"

namespace eng::tensor::elementwise_rows {

inline constexpr UnaryOp kUnaryOps[] = {
#define CWB_UNARY_MATH(Name, ...) UnaryOp::Name,
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, ...) UnaryOp::Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_UNARY
};

inline constexpr BinaryOp kBinaryOps[] = {
#define CWB_ELEMENTWISE_BINARY(Name, ...) BinaryOp::Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
};

}  // namespace eng::tensor::elementwise_rows
