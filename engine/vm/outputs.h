// The stable summary of a script's returned tensors: what `cwb run --call main --outputs FILE` writes, in the
// format of ../shared/examples/*.json "outputs" (shape, dtype, stride, sum, abs_sum, min, max, values).
#pragma once

#include <string>

#include "vm/interpreter.h"

namespace eng::vm {

/// Above this many elements only the first 64 values are written (as `first64`).
inline constexpr int64_t kMaxOutputValues = 4096;

/// One JSON object per returned value (a list/tuple of tensors, or a single tensor), as a JSON array text.
/// Non-tensor values are written as {"kind": "<type>", "repr": "..."}.
std::string outputsJson(Interpreter& vm, const Value& returned);

/// A human-readable form of the same: one line per tensor with shape, dtype, sum and the first values.
std::string outputsText(Interpreter& vm, const Value& returned);

}  // namespace eng::vm
