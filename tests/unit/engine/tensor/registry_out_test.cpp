// out= of pointwise ops written straight into `out` (OpOverload::intoOut): bit for bit the fresh result that the copy
// path copies, for aliased, strided, resized and other-dtype out tensors, and the copy path wherever out cannot take
// the result as it is.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/iteration.h"
#include "tensor/registry.h"
#include "tensor/shape.h"

namespace eng::tensor {
namespace {

const OpRegistry& ops() { return OpRegistry::instance(); }

Value call(std::string_view name, std::vector<Value> args, KeywordArgs kwargs = {}) { return ops().call(name, args, kwargs); }

std::vector<unsigned char> bytesOf(const Tensor& t) {
    const Tensor c = contiguous(t);
    std::vector<unsigned char> bytes(c.nbytes());
    std::memcpy(bytes.data(), c.data(), bytes.size());
    return bytes;
}

// Varied floats (signs, magnitudes up to ~12, a few infinities and NaNs) over enough elements for the worker pool.
Tensor sample(const Shape& shape, double phase) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<double> values(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) values[static_cast<size_t>(i)] = 12.0 * std::sin(0.37 * static_cast<double>(i) + phase) * std::cos(0.011 * static_cast<double>(i));
    values[3] = std::numeric_limits<double>::infinity();
    values[7] = -std::numeric_limits<double>::infinity();
    values[11] = std::numeric_limits<double>::quiet_NaN();
    return fromDoubles(values, shape);
}

/// Whether the call's overload wrote `out` itself (the direct path), asked of its OutKernel.
bool writesDirectly(std::string_view name, std::vector<Value> args, const Tensor& out) {
    const OpOverload& overload = ops().find(name)->overloads.front();
    std::vector<Value> bound = std::move(args);
    for (size_t i = bound.size(); i < overload.schema.params.size(); ++i) bound.push_back(overload.schema.params[i].defaultValue);
    return overload.intoOut && overload.intoOut(Args(std::move(bound)), out);
}

TEST(RegistryOut, UnaryAndBinaryRowsWriteOutAsTheFreshResult) {
    const Tensor x = sample({257, 300}, 0.0);
    const Tensor y = sample({257, 300}, 1.3);
    for (const char* name : {"torch.tanh", "torch.sigmoid", "torch.sin", "torch.cos", "torch.exp", "torch.relu", "torch.silu", "torch.isnan",
                             "torch.erf", "torch.log1p"}) {
        const Tensor fresh = call(name, {Value(x)}).toTensor();
        const Tensor out = empty(x.sizes(), fresh.dtype());
        const Value result = call(name, {Value(x)}, {{"out", Value(out)}});
        EXPECT_TRUE(result.toTensor().isSameTensor(out)) << name;
        EXPECT_EQ(bytesOf(out), bytesOf(fresh)) << name;
        EXPECT_TRUE(writesDirectly(name, {Value(x)}, empty(x.sizes(), fresh.dtype()))) << name;
    }
    for (const char* name : {"torch.add", "torch.sub", "torch.mul", "torch.div", "torch.maximum", "torch.atan2", "torch.lt", "torch.pow"}) {
        const Tensor fresh = call(name, {Value(x), Value(y)}).toTensor();
        const Tensor out = empty(x.sizes(), fresh.dtype());
        call(name, {Value(x), Value(y)}, {{"out", Value(out)}});
        EXPECT_EQ(bytesOf(out), bytesOf(fresh)) << name;
    }
    // A Python number, a broadcast row, a rounding mode.
    const Tensor row = sample({300}, 2.0);
    const Tensor out = empty(x.sizes());
    call("torch.mul", {Value(x), Value(2.5)}, {{"out", Value(out)}});
    EXPECT_EQ(bytesOf(out), bytesOf(call("torch.mul", {Value(x), Value(2.5)}).toTensor()));
    call("torch.add", {Value(x), Value(row)}, {{"out", Value(out)}});
    EXPECT_EQ(bytesOf(out), bytesOf(call("torch.add", {Value(x), Value(row)}).toTensor()));
    call("torch.div", {Value(x), Value(row)}, {{"rounding_mode", Value(std::string("floor"))}, {"out", Value(out)}});
    EXPECT_EQ(bytesOf(out), bytesOf(call("torch.div", {Value(x), Value(row)}, {{"rounding_mode", Value(std::string("floor"))}}).toTensor()));
    EXPECT_TRUE(writesDirectly("torch.add", {Value(x), Value(row)}, out));
}

TEST(RegistryOut, OutMayBeAnInputItself) {
    const Tensor x0 = sample({64, 1100}, 0.5);
    const Tensor y = sample({64, 1100}, 2.5);
    const Tensor sum = call("torch.add", {Value(x0), Value(y)}).toTensor();
    Tensor x = clone(x0);
    EXPECT_TRUE(call("torch.add", {Value(x), Value(y)}, {{"out", Value(x)}}).toTensor().isSameTensor(x));  // torch.add(x, y, out=x)
    EXPECT_EQ(bytesOf(x), bytesOf(sum));
    Tensor y2 = clone(y);
    call("torch.add", {Value(x0), Value(y2)}, {{"out", Value(y2)}});
    EXPECT_EQ(bytesOf(y2), bytesOf(sum));
    Tensor t = clone(x0);
    call("torch.tanh", {Value(t)}, {{"out", Value(t)}});
    EXPECT_EQ(bytesOf(t), bytesOf(call("torch.tanh", {Value(x0)}).toTensor()));
    Tensor both = clone(x0);
    call("torch.mul", {Value(both), Value(both)}, {{"out", Value(both)}});
    EXPECT_EQ(bytesOf(both), bytesOf(call("torch.mul", {Value(x0), Value(x0)}).toTensor()));
    EXPECT_TRUE(writesDirectly("torch.tanh", {Value(t)}, t));
}

TEST(RegistryOut, PartialOverlapKeepsTheCopyPath) {
    // out = buf[1:], input buf[:-1]: elements of the input are written before they are read, so the result comes from
    // a fresh tensor (the values of the input before the call).
    const Tensor base = sample({100001}, 0.2);
    Tensor buf = clone(base);
    const Tensor in = slice(buf, 0, 0, 100000);
    const Tensor out = slice(buf, 0, 1, std::nullopt);
    EXPECT_FALSE(writesDirectly("torch.tanh", {Value(in)}, out));
    EXPECT_FALSE(writesDirectly("torch.add", {Value(in), Value(in)}, out));
    call("torch.tanh", {Value(in)}, {{"out", Value(out)}});
    EXPECT_EQ(bytesOf(out), bytesOf(call("torch.tanh", {Value(slice(base, 0, 0, 100000))}).toTensor()));
}

TEST(RegistryOut, OutReinterpretingAnInputsBytesKeepsTheCopyPath) {
    // out: the first 16 bytes of a float16 [16] input's storage as bool [16] (x.view(torch.bool)[:16]): the same element
    // offset and strides as the input, but each output byte overlaps the input's elements bytewise, not element for
    // element, so the result comes from a fresh tensor (the loop's chunks would otherwise read bytes already written).
    const Tensor x0 = to(sample({16}, 0.4), DType::Float16);
    const Tensor x = clone(x0);
    const Tensor out(x.implPtr()->storage, {16}, {1}, 0, DType::Bool);
    EXPECT_TRUE(overlapsInexactly(x, out));
    EXPECT_FALSE(overlapsInexactly(x, x));
    EXPECT_FALSE(writesDirectly("torch.gt", {Value(x), Value(0.0)}, out));
    call("torch.gt", {Value(x), Value(0.0)}, {{"out", Value(out)}});
    EXPECT_EQ(bytesOf(out), bytesOf(call("torch.gt", {Value(x0), Value(0.0)}).toTensor()));
}

TEST(RegistryOut, StridedOutTensors) {
    const Tensor x = sample({300, 260}, 0.9);
    // Every other column of a wider tensor: not the fresh result's layout, so the copy path (whose contiguous loop
    // may round differently from a strided one) writes it; the columns between are untouched.
    const Tensor wide = zeros({300, 520});
    const Tensor columns = slice(wide, 1, 0, std::nullopt, 2);
    EXPECT_FALSE(writesDirectly("torch.sigmoid", {Value(x)}, columns));
    call("torch.sigmoid", {Value(x)}, {{"out", Value(columns)}});
    EXPECT_EQ(bytesOf(columns), bytesOf(call("torch.sigmoid", {Value(x)}).toTensor()));
    EXPECT_EQ(bytesOf(slice(wide, 1, 1, std::nullopt, 2)), bytesOf(zeros({300, 260})));
    // A transposed input and a transposed out: the fresh result's layout too, so written directly.
    const Tensor xt = transpose(x, 0, 1);
    const Tensor outT = transpose(empty({300, 260}), 0, 1);
    EXPECT_TRUE(writesDirectly("torch.exp", {Value(xt)}, outT));
    call("torch.exp", {Value(xt)}, {{"out", Value(outT)}});
    EXPECT_EQ(bytesOf(outT), bytesOf(call("torch.exp", {Value(xt)}).toTensor()));
    // A contiguous out for a transposed input takes the copy path, with the same values.
    const Tensor rowMajor = empty({260, 300});
    EXPECT_FALSE(writesDirectly("torch.exp", {Value(xt)}, rowMajor));
    call("torch.exp", {Value(xt)}, {{"out", Value(rowMajor)}});
    EXPECT_EQ(bytesOf(rowMajor), bytesOf(call("torch.exp", {Value(xt)}).toTensor()));
}

TEST(RegistryOut, ResizesCastsAndRefuses) {
    const Tensor x = sample({40, 30}, 0.1);
    const Tensor fresh = call("torch.tanh", {Value(x)}).toTensor();
    Tensor emptyOut = empty({0});
    call("torch.tanh", {Value(x)}, {{"out", Value(emptyOut)}});
    EXPECT_EQ(emptyOut.sizes(), x.sizes());
    EXPECT_EQ(bytesOf(emptyOut), bytesOf(fresh));
    Tensor other = zeros({7});
    call("torch.tanh", {Value(x)}, {{"out", Value(other)}});
    EXPECT_EQ(other.sizes(), x.sizes());
    EXPECT_EQ(bytesOf(other), bytesOf(fresh));
    // Another dtype: the float32 result cast into float64, as the copy path casts it.
    const Tensor wide = empty(x.sizes(), DType::Float64);
    EXPECT_FALSE(writesDirectly("torch.tanh", {Value(x)}, wide));
    call("torch.tanh", {Value(x)}, {{"out", Value(wide)}});
    EXPECT_EQ(bytesOf(wide), bytesOf(to(fresh, DType::Float64)));
    try {
        call("torch.add", {Value(x), Value(x)}, {{"out", Value(empty(x.sizes(), DType::Int64))}});
        FAIL() << "float into long";
    } catch (const TensorError& e) {
        EXPECT_STREQ(e.what(), "result type Float can't be cast to the desired output type Long");
    }
    // An unknown rounding_mode: PyTorch's ValueError from the out=, out-of-place and in-place forms alike.
    const Value round(std::string("round"));
    for (const bool withOut : {false, true}) {
        try {
            KeywordArgs kwargs = {{"rounding_mode", round}};
            if (withOut) kwargs.emplace_back("out", Value(empty(x.sizes())));
            call("torch.div", {Value(x), Value(x)}, kwargs);
            FAIL() << "rounding_mode='round'";
        } catch (const TensorError& e) {
            EXPECT_STREQ(e.what(), "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'");
        }
    }
    const Tensor self = clone(x);
    EXPECT_THROW(call("Tensor.div_", {Value(self), Value(x)}, {{"rounding_mode", round}}), TensorError);
    EXPECT_EQ(bytesOf(self), bytesOf(x));
    // Integer rows keep the copy path (their loops may raise midway: integer division by zero).
    const Tensor ints = fromInts({1, 2, 3}, {3});
    EXPECT_FALSE(writesDirectly("torch.add", {Value(ints), Value(ints)}, empty({3}, DType::Int64)));
}

}  // namespace
}  // namespace eng::tensor
