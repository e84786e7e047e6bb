// Double backward (create_graph=True): for each derivative formula the second backward covers, the gradient of
// sum(grad * v) (grad = d loss / d inputs, built with create_graph) against central finite differences of the
// first-order gradient in float64 (the losses, layer_norm, indexing, cat/stack/split too); nodes whose formulas are
// not covered raise at the second backward.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tensor/autograd/engine.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/error.h"
#include "tensor/registry.h"
#include "finite_difference_inputs.h"

namespace eng::tensor {
namespace {

Value call(std::string_view name, std::vector<Value> args, KeywordArgs kwargs = {}) { return OpRegistry::instance().call(name, args, kwargs); }


struct Case {
    std::string name;
    std::vector<std::pair<Shape, Domain>> inputs;
    std::function<Value(const std::vector<Value>&)> fn;
};

// loss = sum(f(inputs) * w): every output element counts, with its own weight.
Tensor loss(const Case& c, const std::vector<Tensor>& inputs) {
    const Value out = c.fn(std::vector<Value>(inputs.begin(), inputs.end()));
    const Tensor w = makeInput(out.toTensor().sizes(), Domain::Signed, 50);
    return call("torch.sum", {call("Tensor.__mul__", {out, Value(w)})}).toTensor();
}

std::vector<Tensor> leaves(const std::vector<Tensor>& values) {
    std::vector<Tensor> out;
    for (const Tensor& v : values) {
        Tensor leaf = clone(v);
        leaf.setRequiresGrad(true);
        out.push_back(leaf);
    }
    return out;
}

// sum_k sum(grad_k * v_k), the gradients taken with or without create_graph.
Tensor projectedGradient(const Case& c, const std::vector<Tensor>& inputs, bool createGraph) {
    const std::vector<Tensor> grads = autograd::grad({loss(c, inputs)}, inputs, {}, createGraph, true, createGraph);
    Value total(zeros({}, TensorOptions{DType::Float64, kCpu, false}));
    for (size_t k = 0; k < grads.size(); ++k) {
        if (!grads[k].defined()) continue;
        const Tensor v = makeInput(grads[k].sizes(), Domain::Signed, 70 + static_cast<int>(k));
        total = call("Tensor.__add__", {total, call("torch.sum", {call("Tensor.__mul__", {Value(grads[k]), Value(v)})})});
    }
    return total.toTensor();
}

void gradgradcheck(const Case& c) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> values;
    for (size_t i = 0; i < c.inputs.size(); ++i) values.push_back(makeInput(c.inputs[i].first, c.inputs[i].second, static_cast<int>(i)));
    const std::vector<Tensor> inputs = leaves(values);
    const Tensor projected = projectedGradient(c, inputs, true);
    std::vector<Tensor> analytic(inputs.size());
    if (projected.requiresGrad()) analytic = autograd::grad({projected}, inputs, {}, false, true);
    constexpr double eps = 1e-6, atol = 1e-5, rtol = 1e-3;
    bool anyNonZero = false;
    for (size_t k = 0; k < values.size(); ++k) {
        auto* data = values[k].dataAs<double>();
        const std::vector<double> exact = analytic[k].defined() ? toDoubles(analytic[k]) : std::vector<double>(values[k].numel(), 0.0);
        for (int64_t j = 0; j < values[k].numel(); ++j) {
            const double original = data[j];
            data[j] = original + eps;
            const double plus = item(projectedGradient(c, leaves(values), false)).toDouble();
            data[j] = original - eps;
            const double minus = item(projectedGradient(c, leaves(values), false)).toDouble();
            data[j] = original;
            const double numeric = (plus - minus) / (2 * eps);
            anyNonZero = anyNonZero || std::abs(numeric) > 1e-3;
            EXPECT_NEAR(exact[static_cast<size_t>(j)], numeric, atol + rtol * std::abs(numeric)) << "input " << k << " element " << j;
        }
    }
    EXPECT_TRUE(anyNonZero) << "the case has no second derivative to check";
}

Case unary(const std::string& op, Domain domain = Domain::Signed, KeywordArgs kwargs = {}) {
    return {op, {{{2, 3}, domain}}, [op, kwargs](const auto& in) { return call(op, {in[0]}, kwargs); }};
}

// op(x) * op(x): a linear op gets a second derivative through the product.
Case squared(const std::string& name, Shape shape, std::function<Value(const Value&)> op) {
    return {name, {{shape, Domain::Signed}}, [op](const auto& in) { return call("Tensor.__mul__", {op(in[0]), op(in[0])}); }};
}

TEST(AutogradDoubleBackward, PointwiseUnary) {
    for (const char* op : {"torch.exp", "torch.tanh", "torch.sigmoid", "torch.sin", "torch.cos", "torch.erf", "torch.atan", "F.silu",
                           "torch.expm1", "F.mish", "torch.sinh", "torch.cosh", "torch.asinh"})
        gradgradcheck(unary(op));
    for (const char* op : {"torch.log", "torch.sqrt", "torch.rsqrt", "torch.reciprocal", "torch.log1p", "torch.log2"})
        gradgradcheck(unary(op, Domain::Positive));
    for (const char* op : {"torch.asin", "torch.acos", "torch.atanh"}) gradgradcheck(unary(op, Domain::Unit));
    gradgradcheck(unary("F.gelu"));
    gradgradcheck(unary("F.gelu", Domain::Signed, {{"approximate", Value("tanh")}}));
    gradgradcheck(unary("F.softplus", Domain::Signed, {{"beta", Value(2.0)}, {"threshold", Value(1.0)}}));
    gradgradcheck(squared("relu", {2, 3}, [](const Value& x) { return call("torch.relu", {x}); }));
    gradgradcheck(squared("abs", {2, 3}, [](const Value& x) { return call("torch.abs", {x}); }));
    gradgradcheck(squared("leaky_relu", {2, 3}, [](const Value& x) { return call("F.leaky_relu", {x, Value(0.1)}); }));
}

TEST(AutogradDoubleBackward, PointwiseBinary) {
    auto binary = [](const std::string& op, Shape a, Shape b, Domain domainB = Domain::Signed) {
        return Case{op, {{a, Domain::Signed}, {b, domainB}}, [op](const auto& in) { return call(op, {in[0], in[1]}); }};
    };
    gradgradcheck(binary("torch.mul", {2, 3}, {3}));
    gradgradcheck(binary("Tensor.__truediv__", {2, 3}, {3}, Domain::Positive));
    gradgradcheck(binary("torch.atan2", {2, 3}, {2, 3}, Domain::Positive));
    gradgradcheck({"pow tensor tensor", {{{2, 3}, Domain::Positive}, {{3}, Domain::Signed}}, [](const auto& in) { return call("torch.pow", {in[0], in[1]}); }});
    gradgradcheck({"x ** 3", {{{2, 3}, Domain::Signed}}, [](const auto& in) { return call("Tensor.__pow__", {in[0], Value(3)}); }});
    gradgradcheck({"2 ** x", {{{2, 3}, Domain::Signed}}, [](const auto& in) { return call("Tensor.__rpow__", {in[0], Value(2.0)}); }});
    gradgradcheck({"3 / x", {{{2, 3}, Domain::Positive}}, [](const auto& in) { return call("Tensor.__rtruediv__", {in[0], Value(3.0)}); }});
    gradgradcheck({"(1 - x) * (x + y) - x", {{{2, 3}, Domain::Signed}, {{2, 3}, Domain::Signed}}, [](const auto& in) {
                       const Value left = call("Tensor.__rsub__", {in[0], Value(1.0)});
                       return call("torch.sub", {call("Tensor.__mul__", {left, call("torch.add", {in[0], in[1]}, {{"alpha", Value(2.0)}})}), in[0]});
                   }});
    gradgradcheck({"where", {{{2, 3}, Domain::Signed}}, [](const auto& in) {
                       const Value square = call("Tensor.__mul__", {in[0], in[0]});
                       return call("torch.where", {call("Tensor.__gt__", {in[0], Value(0.0)}), square, call("torch.exp", {in[0]})});
                   }});
    gradgradcheck(squared("clamp", {3, 4}, [](const Value& x) { return call("torch.clamp", {x, Value(-0.5), Value(0.6)}); }));
    gradgradcheck({"lerp", {{{2, 3}, Domain::Signed}, {{2, 3}, Domain::Signed}, {{3}, Domain::Signed}},
                   [](const auto& in) { return call("torch.lerp", {in[0], in[1], in[2]}); }});
}

TEST(AutogradDoubleBackward, ReductionsAndSoftmax) {
    gradgradcheck(squared("sum dim", {3, 4}, [](const Value& x) { return call("torch.sum", {x}, {{"dim", Value(1)}}); }));
    gradgradcheck(squared("mean keepdim", {3, 4}, [](const Value& x) { return call("torch.mean", {x}, {{"dim", Value(0)}, {"keepdim", Value(true)}}); }));
    gradgradcheck(squared("sum all", {3, 4}, [](const Value& x) { return call("torch.sum", {x}); }));
    gradgradcheck({"softmax", {{{3, 4}, Domain::Signed}}, [](const auto& in) { return call("torch.softmax", {in[0]}, {{"dim", Value(1)}}); }});
    gradgradcheck({"log_softmax", {{{3, 4}, Domain::Signed}}, [](const auto& in) { return call("F.log_softmax", {in[0]}, {{"dim", Value(0)}}); }});
}

TEST(AutogradDoubleBackward, MatrixProductsAndViews) {
    auto product = [](const std::string& op, Shape a, Shape b) {
        return Case{op + " " + shapeStr(a) + " " + shapeStr(b), {{a, Domain::Signed}, {b, Domain::Signed}}, [op](const auto& in) {
                        const Value p = call(op, {in[0], in[1]});
                        return call("Tensor.__mul__", {p, p});
                    }};
    };
    gradgradcheck(product("torch.matmul", {2, 3}, {3, 4}));
    gradgradcheck(product("torch.matmul", {2, 2, 3}, {3, 2}));
    gradgradcheck(product("torch.matmul", {2, 3}, {3}));
    gradgradcheck(product("torch.mm", {2, 3}, {3, 2}));
    gradgradcheck(product("torch.bmm", {2, 2, 3}, {2, 3, 4}));
    gradgradcheck(product("torch.dot", {3}, {3}));
    gradgradcheck({"tanh(linear)", {{{4, 3}, Domain::Signed}, {{2, 3}, Domain::Signed}, {{2}, Domain::Signed}},
                   [](const auto& in) { return call("torch.tanh", {call("F.linear", {in[0], in[1], in[2]})}); }});
    gradgradcheck({"linear 3-D squared", {{{2, 2, 3}, Domain::Signed}, {{2, 3}, Domain::Signed}}, [](const auto& in) {
                       const Value y = call("F.linear", {in[0], in[1]});
                       return call("Tensor.__mul__", {y, y});
                   }});
    gradgradcheck(squared("reshape of t", {2, 3}, [](const Value& x) { return call("Tensor.reshape", {call("Tensor.t", {x}), Value(-1)}); }));
    gradgradcheck(squared("view", {2, 3}, [](const Value& x) { return call("Tensor.view", {x, Value(3), Value(2)}); }));
    gradgradcheck(squared("permute", {2, 3, 2}, [](const Value& x) { return call("Tensor.permute", {x, Value(2), Value(0), Value(1)}); }));
    gradgradcheck(squared("transpose", {2, 3, 2}, [](const Value& x) { return call("Tensor.transpose", {x, Value(0), Value(2)}); }));
    gradgradcheck(squared("unsqueeze squeeze", {2, 3}, [](const Value& x) {
        return call("Tensor.squeeze", {call("Tensor.unsqueeze", {x, Value(1)}), Value(1)});
    }));
    gradgradcheck(squared("expand", {2, 1}, [](const Value& x) { return call("Tensor.expand", {x, Value(3), Value(2), Value(4)}); }));
    gradgradcheck(squared("contiguous of t", {2, 3}, [](const Value& x) { return call("Tensor.contiguous", {call("Tensor.t", {x})}); }));
}

Value ints(std::vector<int64_t> values, Shape shape) { return Value(fromInts(values, shape)); }
Value listOf(std::vector<Value> items) { return Value::list(ValueList(items.begin(), items.end())); }
// The product of the first two items of a tuple result (split, unbind): a second derivative through the join.
Value productOfFirstTwo(const Value& tuple) { return call("Tensor.__mul__", {tuple.items()[0], tuple.items()[1]}); }

TEST(AutogradDoubleBackward, LossesAndLayerNorm) {
    const Value target = ints({2, 0, 3}, {3}), ignoring = ints({2, -100, 1}, {3});
    gradgradcheck({"cross_entropy", {{{3, 4}, Domain::Signed}}, [&](const auto& in) { return call("F.cross_entropy", {in[0], target}); }});
    gradgradcheck({"cross_entropy sum ignore_index", {{{3, 4}, Domain::Signed}},
                   [&](const auto& in) { return call("F.cross_entropy", {in[0], ignoring}, {{"reduction", Value("sum")}}); }});
    gradgradcheck({"cross_entropy none 3-D", {{{2, 3, 2}, Domain::Signed}}, [&](const auto& in) {
                       return call("F.cross_entropy", {in[0], ints({0, 2, 1, 1}, {2, 2})}, {{"reduction", Value("none")}});
                   }});
    gradgradcheck({"cross_entropy probabilities", {{{3, 4}, Domain::Signed}, {{3, 4}, Domain::Positive}},
                   [&](const auto& in) { return call("F.cross_entropy", {in[0], in[1]}); }});
    gradgradcheck({"nll_loss of log_softmax", {{{3, 4}, Domain::Signed}}, [&](const auto& in) {
                       return call("F.nll_loss", {call("F.log_softmax", {in[0]}, {{"dim", Value(1)}}), ignoring});
                   }});
    gradgradcheck(squared("nll_loss none", {3, 4}, [&](const Value& x) { return call("F.nll_loss", {x, target}, {{"reduction", Value("none")}}); }));
    gradgradcheck({"layer_norm", {{{2, 4}, Domain::Signed}, {{4}, Domain::Signed}, {{4}, Domain::Signed}},
                   [](const auto& in) { return call("F.layer_norm", {in[0], listOf({Value(4)}), in[1], in[2]}); }});
    gradgradcheck({"layer_norm two dims, no affine", {{{2, 2, 3}, Domain::Signed}},
                   [](const auto& in) { return call("F.layer_norm", {in[0], listOf({Value(2), Value(3)})}); }});
}

TEST(AutogradDoubleBackward, IndexingJoinsAndSplits) {
    const Value rows = ints({2, 0, 2, 1}, {4});
    gradgradcheck(squared("embedding", {3, 2}, [&](const Value& w) { return call("F.embedding", {rows, w}); }));
    gradgradcheck(squared("embedding padding_idx", {3, 2}, [&](const Value& w) { return call("F.embedding", {rows, w}, {{"padding_idx", Value(0)}}); }));
    gradgradcheck(squared("x[idx]", {3, 2}, [&](const Value& x) { return call("Tensor.__getitem__", {x, rows}); }));
    gradgradcheck(squared("gather", {2, 3}, [](const Value& x) { return call("torch.gather", {x, Value(1), ints({0, 2, 2, 1, 0, 0}, {2, 3})}); }));
    gradgradcheck(squared("index_select", {3, 2}, [&](const Value& x) { return call("torch.index_select", {x, Value(0), rows}); }));
    gradgradcheck(squared("x[1:, 2]", {3, 4}, [](const Value& x) {
        return call("Tensor.__getitem__", {x, Value::tuple({Value(Slice{1, std::nullopt, std::nullopt}), Value(2)})});
    }));
    gradgradcheck(squared("narrow", {3, 4}, [](const Value& x) { return call("torch.narrow", {x, Value(1), Value(1), Value(2)}); }));
    gradgradcheck(squared("select", {3, 4}, [](const Value& x) { return call("torch.select", {x, Value(0), Value(2)}); }));
    gradgradcheck({"cat", {{{2, 3}, Domain::Signed}, {{2, 1}, Domain::Signed}}, [](const auto& in) {
                       const Value joined = call("torch.cat", {listOf({in[0], in[1]}), Value(1)});
                       return call("Tensor.__mul__", {joined, call("torch.cat", {listOf({in[1], in[0]}), Value(1)})});
                   }});
    gradgradcheck({"stack", {{{2, 3}, Domain::Signed}, {{2, 3}, Domain::Signed}}, [](const auto& in) {
                       return call("Tensor.__mul__", {call("torch.stack", {listOf({in[0], in[1]})}), call("torch.stack", {listOf({in[1], in[0]})})});
                   }});
    gradgradcheck({"split", {{{2, 4}, Domain::Signed}}, [](const auto& in) { return productOfFirstTwo(call("torch.split", {in[0], Value(2), Value(1)})); }});
    gradgradcheck({"chunk", {{{4, 3}, Domain::Signed}}, [](const auto& in) { return productOfFirstTwo(call("torch.chunk", {in[0], Value(2)})); }});
    gradgradcheck({"unbind", {{{2, 3}, Domain::Signed}}, [](const auto& in) { return productOfFirstTwo(call("torch.unbind", {in[0]})); }});
}

TEST(AutogradDoubleBackward, UncoveredFormulaRaisesAtTheSecondBackward) {
    Tensor x = makeInput({2, 3}, Domain::Signed, 0);
    x.setRequiresGrad(true);
    const Tensor y = call("torch.cumsum", {call("Tensor.__mul__", {Value(x), Value(x)}), Value(1)}).toTensor();
    const Tensor l = call("torch.sum", {call("Tensor.__mul__", {Value(y), Value(y)})}).toTensor();
    const std::vector<Tensor> g = autograd::grad({l}, {x}, {}, true, false, true);
    ASSERT_TRUE(g[0].requiresGrad());
    try {
        autograd::grad({call("torch.sum", {Value(g[0])}).toTensor()}, {x}, {}, false, false);
        FAIL() << "the second backward through CumsumBackward0 did not raise";
    } catch (const TensorError& e) {
        EXPECT_STREQ(e.what(), "derivative for aten::cumsum_backward is not implemented");
    }
}

TEST(AutogradDoubleBackward, LeafGradientKeepsItsHistory) {
    // backward(create_graph=True) leaves x.grad = 3x^2 with history; a second backward of x.grad.sum() adds 6x.
    Tensor x = fromDoubles({1.0, -2.0, 0.5}, {3}, DType::Float64);
    x.setRequiresGrad(true);
    const Tensor cube = call("Tensor.__pow__", {Value(x), Value(3)}).toTensor();
    autograd::backward({call("torch.sum", {Value(cube)}).toTensor()}, {}, true, true);
    const Tensor first = gradOf(x);
    ASSERT_TRUE(first.requiresGrad());
    EXPECT_EQ(toDoubles(first), (std::vector<double>{3.0, 12.0, 0.75}));
    x.impl()->autograd->grad = Tensor();
    autograd::backward({call("torch.sum", {Value(first)}).toTensor()}, {});
    EXPECT_EQ(toDoubles(gradOf(x)), (std::vector<double>{6.0, -12.0, 3.0}));
}

}  // namespace
}  // namespace eng::tensor
