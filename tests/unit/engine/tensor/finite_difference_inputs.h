// Float64 inputs for the finite-difference checks of autograd (first and second order): smooth, repeatable values
// chosen per domain so that no op has a kink or leaves its domain within the difference step.
#pragma once

#include <cmath>
#include <vector>

#include "tensor/creation.h"
#include "tensor/tensor.h"

namespace eng::tensor {

// Anywhere in (-1, 1) away from 0 (so |x|, relu and friends have no kink within the step), positive (log, sqrt,
// ...), inside (-0.85, 0.85) for asin/acos/atanh, or above 1 for acosh.
enum class Domain { Signed, Positive, Unit, AboveOne };

inline Tensor makeInput(const Shape& shape, Domain domain, int seed) {
    std::vector<double> values;
    for (int64_t i = 0; i < shapeNumel(shape); ++i) {
        double v = std::sin(1.37 * static_cast<double>(i) + 0.91 * seed + 0.3);
        if (domain == Domain::Positive) v = 0.4 + std::abs(v);
        if (domain == Domain::Signed) v = (v < 0 ? -0.15 : 0.15) + 0.85 * v;
        if (domain == Domain::Unit) v *= 0.85;
        if (domain == Domain::AboveOne) v = 1.2 + std::abs(v);
        values.push_back(v);
    }
    return fromDoubles(values, shape, DType::Float64);
}

}  // namespace eng::tensor
