// The tensor parts of ../shared/examples, computed with the runtime's C++ API exactly as each program does it
// eagerly, against the outputs real PyTorch 2.11 recorded (rtol 1e-4, atol 1e-5). Skipped when ../shared is
// absent. 24_training_step (autograd through the registry) is covered by the VM example tests instead.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/linalg.h"
#include "tensor/nn_functional.h"
#include "tensor/pointwise.h"
#include "tensor/reduction.h"
#include "tensor/shape.h"

namespace eng::tensor {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kExamples = fs::path(CWB_SHARED_DIR) / "examples";

Tensor arangeF(int64_t n) { return arange(Scalar(n), TensorOptions{DType::Float32}); }
Tensor sinT(const Tensor& x) { return unary(UnaryOp::Sin, x); }
Tensor cosT(const Tensor& x) { return unary(UnaryOp::Cos, x); }

double number(const json& j) {
    if (j.is_string()) return j == "nan" ? std::nan("") : (j == "inf" ? INFINITY : -INFINITY);
    return j.get<double>();
}

void expectMatches(const json& expected, const Tensor& actual) {
    EXPECT_EQ(actual.sizes(), expected["shape"].get<Shape>());
    EXPECT_EQ(dtypeName(actual.dtype()), expected["dtype"].get<std::string>());
    EXPECT_EQ(actual.strides(), expected["stride"].get<Shape>());
    const std::vector<double> values = toDoubles(actual);
    const json& reference = expected.contains("values") ? expected["values"] : expected["first64"];
    ASSERT_LE(reference.size(), values.size());
    for (size_t i = 0; i < reference.size(); ++i) {
        const double want = number(reference[i]);
        ASSERT_NEAR(values[i], want, 1e-5 + 1e-4 * std::abs(want)) << "element " << i;
    }
    double total = 0;
    for (double v : values) total += v;
    EXPECT_NEAR(total, expected["sum"].get<double>(), 1e-4 * (1 + expected["abs_sum"].get<double>()));
}

void checkExample(const std::string& name, const std::function<std::vector<Tensor>()>& program) {
    const fs::path file = kExamples / (name + ".json");
    if (!fs::exists(file)) GTEST_SKIP() << "no " << file;
    const json truth = json::parse(std::ifstream(file));
    const json& outputs = truth["cpu"]["outputs"];
    const std::vector<Tensor> results = program();
    ASSERT_EQ(results.size(), outputs.size());
    for (size_t i = 0; i < results.size(); ++i) {
        SCOPED_TRACE(name + " output " + std::to_string(i));
        expectMatches(outputs[i], results[i]);
    }
}

TEST(SharedExamples, PointwiseSinCos) {
    checkExample("01_pointwise_sin_cos", [] {
        const Tensor x = sinT(reshape(arangeF(4096), {64, 64}));
        auto f = [](const Tensor& v) { return add(sinT(v), mul(cosT(v), 0.5)); };
        return std::vector<Tensor>{f(x), f(mul(x, 2.0))};
    });
}

TEST(SharedExamples, BreakPrint) {
    checkExample("03_break_print", [] {
        const Tensor x = reshape(linspace(Scalar(-2.0), Scalar(2.0), 1024), {32, 32});
        auto f = [](const Tensor& v) { return add(cosT(mul(sinT(v), 2.0)), 1.0); };
        return std::vector<Tensor>{f(x), f(add(x, 1.0))};
    });
}

TEST(SharedExamples, ItemBranch) {
    checkExample("04_break_item_branch", [] {
        const Tensor base = reshape(arangeF(256), {16, 16});
        const Tensor pos = add(sinT(mul(base, 0.1)), 0.5);
        const Tensor neg = sub(sinT(mul(base, 0.1)), 0.5);
        auto f = [](const Tensor& v) {
            const Tensor y = item(sum(v)).toDouble() > 0.0 ? mul(v, 2.0) : sub(v, 1.0);
            return unary(UnaryOp::Tanh, y);
        };
        return std::vector<Tensor>{f(pos), f(neg), f(mul(pos, 3.0))};
    });
}

TEST(SharedExamples, DimChange) {
    checkExample("08_recompile_dim_change", [] {
        auto f = [](const Tensor& v) { return add(sum(mul(v, v), std::vector<int64_t>{1}), mean(v)); };
        std::vector<Tensor> outs;
        for (int64_t cols : {16, 32, 48}) outs.push_back(f(cosT(mul(reshape(arangeF(8 * cols), {8, cols}), 0.1))));
        outs.push_back(f(cosT(mul(reshape(arangeF(16 * 48), {16, 48}), 0.1))));
        return outs;
    });
}

TEST(SharedExamples, DtypeChange) {
    checkExample("09_recompile_dtype", [] {
        const Tensor x = sinT(mul(arangeF(1000), 0.01));
        auto f = [](const Tensor& v) { return add(mul(unary(UnaryOp::Exp, mul(unary(UnaryOp::Neg, v), v)), 2.0), v); };
        return std::vector<Tensor>{f(x), f(to(x, DType::Float64)), f(mul(x, 0.5))};
    });
}

TEST(SharedExamples, GlobalFlag) {
    checkExample("11_recompile_global_flag", [] {
        const Tensor x = sinT(mul(arangeF(256), 0.2));
        const Tensor relu2 = mul(unary(UnaryOp::Relu, x), 2.0);
        return std::vector<Tensor>{relu2, mul(unary(UnaryOp::Tanh, x), 2.0), relu2};
    });
}

TEST(SharedExamples, DynamicShapes) {
    checkExample("13_dynamic_true", [] {
        std::vector<Tensor> outs;
        for (int64_t n : {16, 40, 100}) {
            const Tensor x = sinT(mul(arangeF(n), 0.3));
            outs.push_back(div(mul(unary(UnaryOp::Sigmoid, x), sum(x)), Scalar(x.size(0))));
        }
        return outs;
    });
}

TEST(SharedExamples, FullgraphFallback) {
    checkExample("15_fullgraph_error", [] {
        const Tensor x = sinT(mul(arangeF(128), 0.05));
        return std::vector<Tensor>{add(mul(cosT(x), 2.0), 1.0), full({1}, Scalar(1.0))};
    });
}

TEST(SharedExamples, MlpModule) {
    checkExample("16_mlp_module", [] {
        // init_params: parameter k gets sin(0.7 * i + k) * 0.2, in fc1.weight, fc1.bias, fc2.weight, fc2.bias order.
        const std::vector<Shape> shapes = {{64, 32}, {64}, {16, 64}, {16}};
        std::vector<Tensor> params;
        for (size_t k = 0; k < shapes.size(); ++k)
            params.push_back(reshape(mul(sinT(add(mul(arangeF(shapeNumel(shapes[k])), 0.7), Scalar(static_cast<int64_t>(k)))), 0.2), shapes[k]));
        const Tensor x = sinT(mul(reshape(arangeF(256), {8, 32}), 0.11));
        const Tensor y = linear(gelu(linear(x, params[0], params[1])), params[2], params[3]);
        return std::vector<Tensor>{y, y};
    });
}

TEST(SharedExamples, Softmaxes) {
    checkExample("18_softmax", [] {
        const Tensor x = mul(sinT(mul(reshape(arangeF(3200), {32, 100}), 0.37)), 4.0);
        const Tensor m = maxDim(x, -1, true).values;
        const Tensor e = unary(UnaryOp::Exp, sub(x, m));
        return std::vector<Tensor>{softmax(x, -1), softmax(mul(x, 0.5), 0), div(e, sum(e, std::vector<int64_t>{-1}, true)),
                                   logSoftmax(x, 1)};
    });
}

TEST(SharedExamples, NestedInline) {
    checkExample("27_nested_inline", [] {
        auto scaleShift = [](const Tensor& v, double s, double t) { return add(mul(v, s), t); };
        auto gated = [&](const Tensor& v) { return mul(unary(UnaryOp::Sigmoid, scaleShift(v, 2.0, -1.0)), v); };
        auto block = [&](const Tensor& v) { return add(gated(v), scaleShift(gated(v), 0.5, 0.0)); };
        const Tensor x = sinT(mul(reshape(arangeF(2048), {16, 128}), 0.07));
        return std::vector<Tensor>{sum(block(block(x)), std::vector<int64_t>{-1})};
    });
}

}  // namespace
}  // namespace eng::tensor
