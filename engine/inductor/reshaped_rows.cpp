// A pointwise buffer over a row kernel's input reshaped in its rows, in the row kernel's variables: the scheduler's
// test and index for it (scheduler.cpp). The leading dims come from the flat row number by div/mod, which the index
// arithmetic folds back wherever the buffer's body linearises them again (a reshape of the rows' values).
#include "inductor/reshaped_rows.h"

namespace eng::inductor {

std::optional<std::vector<Index>> reshapedRowsIndex(const std::vector<Index>& groupSizes, const std::vector<bool>& reducedDims,
                                                    const std::vector<Index>& outerVars, const std::vector<Index>& redVars,
                                                    const std::vector<Index>& sizes) {
    const size_t rank = groupSizes.size();
    size_t kept = 0;
    while (kept < rank && !reducedDims[kept]) ++kept;
    for (size_t d = kept; d < rank; ++d)
        if (!reducedDims[d]) return std::nullopt;  // the reduced dims are not the trailing ones
    const size_t tail = rank - kept;
    if (kept == 0 || sizes.size() <= tail || outerVars.size() != kept || redVars.size() != tail) return std::nullopt;
    const size_t lead = sizes.size() - tail;
    for (size_t t = 0; t < tail; ++t)
        if (!indexEqual(sizes[lead + t], groupSizes[kept + t]) && constantValue(sizes[lead + t]) != constantValue(groupSizes[kept + t]))
            return std::nullopt;
    int64_t groupRows = 1, rows = 1;
    for (size_t d = 0; d < kept; ++d) {
        const std::optional<int64_t> n = constantValue(groupSizes[d]);
        if (!n) return std::nullopt;
        groupRows *= *n;
    }
    for (size_t d = 0; d < lead; ++d) {
        const std::optional<int64_t> n = constantValue(sizes[d]);
        if (!n || *n <= 0) return std::nullopt;
        rows *= *n;
    }
    bool sameRows = lead == kept;
    for (size_t d = 0; sameRows && d < lead; ++d) sameRows = constantValue(sizes[d]) == constantValue(groupSizes[d]);
    if (rows != groupRows || sameRows) return std::nullopt;  // other rows, or the same sizes (the scheduler's own case)
    Index flat = indexConstant(0);
    for (size_t d = 0; d < kept; ++d) flat = flat * groupSizes[d] + outerVars[d];
    std::vector<Index> index;
    int64_t below = rows;
    for (size_t d = 0; d < lead; ++d) {
        const int64_t n = *constantValue(sizes[d]);
        below /= n;
        Index i = floorDiv(flat, indexConstant(below));
        index.push_back(d == 0 ? i : modulo(i, indexConstant(n)));
    }
    index.insert(index.end(), redVars.begin(), redVars.end());
    return index;
}

}  // namespace eng::inductor
