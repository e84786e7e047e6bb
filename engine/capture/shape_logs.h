// TORCH_LOGS=dynamic: what ShapeEnv logs at INFO while Dynamo traces (torch/fx/experimental/symbolic_shapes.py):
// the symbols it creates for dynamic sizes and the shape guards it adds, with the user line that asked for them.
#pragma once

#include <string>

#include "capture/guards.h"

namespace eng::capture {

/// "create_symbol s0 = 5 for L['x'].size()[0] [2, int_oo] at f.py:3 in f, for more info run with ...".
void logCreateSymbol(const std::string& symbol, const std::string& value, const std::string& source, const std::string& range,
                     const GuardOrigin& where);

/// "eval Eq(s0, 3) [guard added] at f.py:5 in f (...), for more info run with ..." for a comparison of the size
/// `symbol` stands for (guard.compareOp, guard.expected, guard.outcome).
void logShapeGuard(const std::string& symbol, const GuardSpec& guard);

/// The sympy text of that guard: Eq(s0, 3), Ne(s0, 3), s0 <= 3, ...
std::string shapeGuardExpression(const std::string& symbol, const GuardSpec& guard);

}  // namespace eng::capture
