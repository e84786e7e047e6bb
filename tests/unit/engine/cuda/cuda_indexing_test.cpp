// The indexing ops on CUDA tensors run device kernels (engine/tensor/cuda_indexing.cpp) and equal the CPU ops:
// gather, advanced indexing, index_select, embedding, index_put_ with and without accumulation in every dtype, the
// losses' label lookups; out-of-range indices raise the CPU's errors (at the next synchronisation). Skipped where no CUDA device is present.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "cuda/driver.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/indexing.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/random.h"
#include "tensor/shape.h"

namespace {

using namespace eng::tensor;

const Device kCuda = Device::parse("cuda:0");

class CudaIndexing : public ::testing::Test {
protected:
    void SetUp() override {
        if (!eng::cuda::cudaAvailable()) GTEST_SKIP() << "no CUDA device: " << eng::cuda::driverStatus().reason;
        manualSeed(99);
    }
};

Tensor onGpu(const Tensor& t) { return to(t, std::nullopt, kCuda); }

Tensor ints(int64_t low, int64_t high, const Shape& shape, DType dtype = DType::Int64) {
    return randint(low, high, shape, TensorOptions{dtype, kCpu, false});
}

// The GPU result (checked to be a cuda tensor) against the CPU's, element by element within tolerance * (1 + |want|).
void expectSame(const std::string& what, const Tensor& expected, const Tensor& gpu, double tolerance = 0) {
    SCOPED_TRACE(what);
    ASSERT_EQ(gpu.device().type(), DeviceType::CUDA);
    const Tensor actual = to(gpu, std::nullopt, kCpu);
    ASSERT_EQ(actual.sizes(), expected.sizes());
    ASSERT_EQ(actual.dtype(), expected.dtype());
    const std::vector<double> want = toDoubles(expected), got = toDoubles(actual);
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], tolerance * (1 + std::abs(want[i]))) << "element " << i;
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const TensorError& e) {
        return e.what();
    }
    return "no error";
}

TEST_F(CudaIndexing, GatherAndAdvancedIndexingEqualTheCpu) {
    const Tensor x = randn({6, 5, 4});
    const Tensor transposed = transpose(x, 0, 2);  // [4, 5, 6], strides the kernels must follow
    const Tensor g1 = ints(-5, 5, {6, 3, 4}), g2 = ints(-6, 6, {4, 5, 2});
    expectSame("gather dim 1, negative indices", gather(x, 1, g1), gather(onGpu(x), 1, onGpu(g1)));
    expectSame("gather of a transposed tensor", gather(transposed, 2, g2), gather(onGpu(transposed), 2, onGpu(g2)));
    // Indexed dims apart (the index dims go first) and next to each other (they stay in place), broadcast together.
    const Tensor a = ints(-6, 6, {3, 1}), b = ints(-4, 4, {2}), c = ints(-5, 5, {3, 2});
    expectSame("x[a, :, b]", advancedIndex(x, {a, Tensor(), b}), advancedIndex(onGpu(x), {onGpu(a), Tensor(), onGpu(b)}));
    expectSame("x[:, c, b]", advancedIndex(x, {Tensor(), c, b}), advancedIndex(onGpu(x), {Tensor(), onGpu(c), onGpu(b)}));
    const Tensor rows4 = ints(-4, 4, {3, 2});  // transposed's first dim has 4 rows
    expectSame("transposed[rows4]", advancedIndex(transposed, {rows4}), advancedIndex(onGpu(transposed), {onGpu(rows4)}));
    const Tensor select32 = ints(0, 5, {7}, DType::Int32);
    expectSame("index_select int32", indexSelect(x, 1, select32), indexSelect(onGpu(x), 1, onGpu(select32)));
    // CPU index tensors serve a CUDA tensor, as in PyTorch.
    expectSame("cpu indices", advancedIndex(x, {a}), advancedIndex(onGpu(x), {a}));
    for (DType dtype : {DType::BFloat16, DType::Float16, DType::Int8, DType::Bool, DType::Float64}) {
        const Tensor typed = to(x, dtype);
        expectSame(std::string("x[c] ") + std::string(dtypeName(dtype)), advancedIndex(typed, {c}), advancedIndex(onGpu(typed), {onGpu(c)}));
    }
}

TEST_F(CudaIndexing, EmbeddingAtLanguageModelShape) {
    const Tensor weight = randn({5000, 96});
    const Tensor tokens = ints(0, 5000, {4, 256});
    expectSame("embedding", embedding(tokens, weight), embedding(onGpu(tokens), onGpu(weight)));
    EXPECT_EQ(errorOf([&] { (void)toDoubles(embedding(onGpu(ints(5000, 5001, {3})), onGpu(weight))); }), "index out of range in self");
    EXPECT_EQ(errorOf([&] { (void)toDoubles(embedding(onGpu(fromInts({3, -1}, {2})), onGpu(weight))); }), "index out of range in self");
    const Tensor int32Tokens = to(tokens, DType::Int32);
    expectSame("embedding of int32 indices", embedding(int32Tokens, weight), embedding(onGpu(int32Tokens), onGpu(weight)));
}

TEST_F(CudaIndexing, IndexPutAccumulatesDuplicatesInEveryDtype) {
    // Far more updates than rows: every row is hit many times, as embedding's backward hits a token's row.
    const Tensor rows = ints(-10, 10, {3000});
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Float16, DType::Int64, DType::Int32, DType::Int16,
                        DType::Int8, DType::UInt8, DType::Bool}) {
        // 16-bit floats round after every add, in an order the atomics choose: values in {-1, 0, 1} keep every
        // partial sum an exact small integer, so any order gives the CPU's sum; float32/64 add randn values.
        const bool wide = dtype == DType::Float32 || dtype == DType::Float64;
        const Tensor base = wide ? to(randn({10, 3}), dtype) : to(ints(0, 3, {10, 3}), dtype);
        const bool unsignedOrBool = dtype == DType::UInt8 || dtype == DType::Bool;
        const Tensor values = wide ? to(randn({3000, 3}), dtype) : to(ints(unsignedOrBool ? 0 : -1, 2, {3000, 3}), dtype);
        const Tensor expected = clone(base), actual = onGpu(base);
        indexPut(expected, {rows}, values, true);
        indexPut(actual, {onGpu(rows)}, onGpu(values), true);
        const double tolerance = wide ? 1e-4 : 0;
        expectSame(std::string("index_put_ accumulate ") + std::string(dtypeName(dtype)), expected, actual, tolerance);
    }
}

TEST_F(CudaIndexing, IndexPutAssignsAndBroadcastsValues) {
    const Tensor x = randn({6, 5});
    const Tensor distinct = narrow(randperm(6), 0, 0, 4);
    const Tensor expected = clone(x), actual = onGpu(x);
    const Tensor row = randn({5});  // broadcast to every indexed row
    indexPut(expected, {distinct}, row);
    indexPut(actual, {onGpu(distinct)}, onGpu(row));
    expectSame("index_put_ broadcast", expected, actual);
    // A transposed target: the writes follow its strides.
    const Tensor wide = randn({5, 6});
    const Tensor want = clone(transpose(wide, 0, 1));
    const Tensor onDevice = transpose(onGpu(wide), 0, 1);
    const Tensor values = randn({4, 5});
    indexPut(want, {distinct}, values);
    indexPut(onDevice, {onGpu(distinct)}, onGpu(values));
    expectSame("index_put_ transposed", want, onDevice);
    // checked on the device: raised at the next copy to the host (device_assertions_test.cpp)
    EXPECT_EQ(errorOf([&] {
                  const Tensor target = onGpu(x);
                  indexPut(target, {onGpu(ints(6, 7, {1}))}, onGpu(row));
                  (void)toDoubles(target);
              }),
              "index 6 is out of bounds for dimension 0 with size 6");
}

TEST_F(CudaIndexing, LossesPickLabelsOnTheDevice) {
    const Tensor logits = randn({64, 50});
    Tensor labels = ints(0, 50, {64});
    labels = where(eq(remainder(arange(Scalar(64)), 7), 0), -100, labels);  // every seventh ignored
    for (const char* reduction : {"mean", "sum", "none"})
        expectSame(std::string("cross_entropy ") + reduction, crossEntropy(logits, labels, reduction),
                   crossEntropy(onGpu(logits), onGpu(labels), reduction), 1e-5);
    // checked on the device: raised at the next copy to the host (device_assertions_test.cpp)
    EXPECT_EQ(errorOf([&] { toDoubles(crossEntropy(onGpu(logits), onGpu(ints(50, 51, {64})))); }), "Target 50 is out of bounds.");
}

}  // namespace
