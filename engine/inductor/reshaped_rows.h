// A pointwise buffer over a row kernel's input reshaped in its rows ([8, 1024, 50257] beside reductions over
// [8192, 50257] rows): the scheduler computes it in that kernel, at each row's point, instead of in a kernel of its own.
#pragma once

#include <optional>
#include <vector>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor {

/// The index, in a row kernel's variables, of a buffer of `sizes` when its dims are the kernel's (`groupSizes`, whose
/// trailing dims are the reduced ones, `reducedDims`) with the kept leading dims reshaped to other constant sizes of
/// the same count of rows: its leading dims from the flat row number of `outerVars`, then `redVars`; nullopt otherwise.
std::optional<std::vector<Index>> reshapedRowsIndex(const std::vector<Index>& groupSizes, const std::vector<bool>& reducedDims,
                                                    const std::vector<Index>& outerVars, const std::vector<Index>& redVars,
                                                    const std::vector<Index>& sizes);

}  // namespace eng::inductor
