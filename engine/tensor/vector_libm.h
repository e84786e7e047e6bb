// Contiguous float32 sin and cos through glibc's libmvec, the vector math library the compiled CPU kernels call
// (engine/inductor/cpu/cpu_jit.cpp): libm's sinf is one call per element, which keeps the eager loop scalar.
#pragma once

#include <cstdint>

#include "tensor/pointwise.h"

namespace eng::tensor::vectorlibm {

// Whether op has a libmvec loop here (sin, cos) and libmvec is loaded.
bool covers(UnaryOp op);
// out[i] = op(in[i]) for i in [0, n) (in may equal out), 4, 8 or 16 lanes at a time as simdLevel() allows, the
// last partial vector padded, so that every element takes the same function; split over the worker pool. Only
// for an op covers() accepts.
void run(UnaryOp op, const float* in, float* out, int64_t n);

}  // namespace eng::tensor::vectorlibm
