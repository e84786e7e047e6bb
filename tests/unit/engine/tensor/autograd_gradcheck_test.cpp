// Gradcheck for every differentiable op of the registry: analytic gradients from backward() against central
// finite differences in float64 (as torch.autograd.gradcheck does, atol 1e-5, rtol 1e-3). Each case maps
// float64 inputs to outputs; the checked scalar is sum(output * fixed weights) so every output element counts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/registry.h"
#include "finite_difference_inputs.h"

namespace eng::tensor {
namespace {

const OpRegistry& ops() { return OpRegistry::instance(); }
Value call(std::string_view name, std::vector<Value> args, KeywordArgs kwargs = {}) { return ops().call(name, args, kwargs); }
Value list(std::vector<Value> items) { return Value::list(std::move(items)); }
Value longs(std::vector<int64_t> values) { return Value(fromInts(values, {static_cast<int64_t>(values.size())})); }


struct InputSpec {
    Shape shape;
    Domain domain = Domain::Signed;
};

struct GradCase {
    std::string name;
    std::vector<InputSpec> inputs;
    std::function<Value(const std::vector<Value>&)> fn;
};

void collectOutputs(const Value& v, std::vector<Tensor>& out) {
    if (v.isTensor() && isFloating(v.toTensor().dtype())) out.push_back(v.toTensor());
    if (v.isSequence())
        for (const Value& item : v.items()) collectOutputs(item, out);
}

// sum_i sum(out_i * w_i) with weights that differ per element, computed through the registry (so it records).
Value weightedSum(const Value& result) {
    std::vector<Tensor> outputs;
    collectOutputs(result, outputs);
    Value total;
    for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor w = makeInput(outputs[i].sizes(), Domain::Signed, 100 + static_cast<int>(i));
        const Value term = call("torch.sum", {call("Tensor.__mul__", {Value(outputs[i]), Value(to(w, outputs[i].dtype()))})});
        total = total.isNone() ? term : call("Tensor.__add__", {total, term});
    }
    return total;
}

double evaluate(const GradCase& c, const std::vector<Tensor>& inputs) {
    const autograd::GradModeGuard noGrad(false);
    std::vector<Value> args(inputs.begin(), inputs.end());
    return item(weightedSum(c.fn(args)).toTensor()).toDouble();
}

void gradcheck(const GradCase& c) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        Tensor t = makeInput(c.inputs[i].shape, c.inputs[i].domain, static_cast<int>(i));
        t.setRequiresGrad(true);
        inputs.push_back(t);
    }
    std::vector<Value> args(inputs.begin(), inputs.end());
    const Value loss = weightedSum(c.fn(args));
    ASSERT_TRUE(loss.toTensor().requiresGrad());
    call("Tensor.backward", {loss});
    constexpr double eps = 1e-6, atol = 1e-5, rtol = 1e-3;
    for (size_t k = 0; k < inputs.size(); ++k) {
        const Tensor grad = gradOf(inputs[k]);
        ASSERT_TRUE(grad.defined()) << "input " << k << " got no gradient";
        ASSERT_EQ(grad.sizes(), inputs[k].sizes());
        ASSERT_EQ(grad.dtype(), DType::Float64);
        const std::vector<double> analytic = toDoubles(grad);
        auto* data = inputs[k].dataAs<double>();
        for (int64_t j = 0; j < inputs[k].numel(); ++j) {
            const double original = data[j];
            data[j] = original + eps;
            const double plus = evaluate(c, inputs);
            data[j] = original - eps;
            const double minus = evaluate(c, inputs);
            data[j] = original;
            const double numeric = (plus - minus) / (2 * eps);
            EXPECT_NEAR(analytic[static_cast<size_t>(j)], numeric, atol + rtol * std::abs(numeric)) << "input " << k << " element " << j;
        }
    }
}

GradCase unaryCase(const std::string& op, Domain domain = Domain::Signed, KeywordArgs kwargs = {}) {
    return {op, {{{2, 3}, domain}}, [op, kwargs](const std::vector<Value>& in) { return call(op, {in[0]}, kwargs); }};
}

GradCase binaryCase(const std::string& op, Shape a, Shape b, Domain domainB = Domain::Signed) {
    return {op + " " + shapeStr(a) + " " + shapeStr(b), {{a}, {b, domainB}},
            [op](const std::vector<Value>& in) { return call(op, {in[0], in[1]}); }};
}

TEST(AutogradGradcheck, PointwiseUnary) {
    for (const char* op : {"torch.abs", "torch.neg", "torch.exp", "torch.sin", "torch.cos", "torch.tanh", "torch.sigmoid", "torch.relu",
                           "F.silu", "F.gelu", "torch.exp2", "torch.expm1", "torch.tan", "torch.atan", "torch.sinh", "torch.cosh",
                           "torch.square", "torch.erf", "F.mish", "F.leaky_relu", "F.softplus", "torch.floor", "torch.frac",
                           "Tensor.__neg__", "Tensor.__abs__", "torch.sign", "torch.round", "torch.asinh", "torch.arcsinh"})
        gradcheck(unaryCase(op));
    for (const char* op : {"torch.log", "torch.sqrt", "torch.rsqrt", "torch.log2", "torch.log10", "torch.log1p", "torch.reciprocal"})
        gradcheck(unaryCase(op, Domain::Positive));
    for (const char* op : {"torch.asin", "torch.acos", "torch.atanh", "torch.arctanh"}) gradcheck(unaryCase(op, Domain::Unit));
    for (const char* op : {"torch.acosh", "torch.arccosh"}) gradcheck(unaryCase(op, Domain::AboveOne));
    gradcheck(unaryCase("F.gelu", Domain::Signed, {{"approximate", Value("tanh")}}));
    gradcheck(unaryCase("F.softplus", Domain::Signed, {{"beta", Value(2.0)}, {"threshold", Value(1.0)}}));
}

TEST(AutogradGradcheck, PointwiseBinaryWithBroadcasting) {
    for (const char* op : {"Tensor.__add__", "Tensor.__sub__", "Tensor.__mul__", "torch.maximum", "torch.minimum", "torch.atan2"}) {
        gradcheck(binaryCase(op, {2, 3}, {2, 3}));
        gradcheck(binaryCase(op, {2, 3}, {3}));
        gradcheck(binaryCase(op, {2, 1}, {1, 3}));
    }
    gradcheck(binaryCase("Tensor.__truediv__", {2, 3}, {3}, Domain::Positive));
    gradcheck(binaryCase("torch.div", {2, 3}, {2, 1}, Domain::Positive));
    gradcheck(binaryCase("Tensor.__mod__", {2, 3}, {3}, Domain::Positive));
    gradcheck({"pow tensor tensor", {{{2, 3}, Domain::Positive}, {{3}}}, [](const auto& in) { return call("torch.pow", {in[0], in[1]}); }});
    gradcheck({"x ** 3", {{{2, 3}}}, [](const auto& in) { return call("Tensor.__pow__", {in[0], Value(3)}); }});
    gradcheck({"x ** 0.5", {{{2, 3}, Domain::Positive}}, [](const auto& in) { return call("Tensor.__pow__", {in[0], Value(0.5)}); }});
    gradcheck({"2 ** x", {{{2, 3}}}, [](const auto& in) { return call("Tensor.__rpow__", {in[0], Value(2.0)}); }});
    gradcheck({"1 - x", {{{2, 3}}}, [](const auto& in) { return call("Tensor.__rsub__", {in[0], Value(1.0)}); }});
    gradcheck({"3 / x", {{{2, 3}, Domain::Positive}}, [](const auto& in) { return call("Tensor.__rtruediv__", {in[0], Value(3.0)}); }});
    gradcheck({"2 * x", {{{2, 3}}}, [](const auto& in) { return call("Tensor.__rmul__", {in[0], Value(2.0)}); }});
    gradcheck({"add alpha", {{{2, 3}}, {{3}}}, [](const auto& in) { return call("torch.add", {in[0], in[1]}, {{"alpha", Value(2.5)}}); }});
    gradcheck({"sub alpha", {{{2, 3}}, {{2, 3}}}, [](const auto& in) { return call("torch.sub", {in[0], in[1]}, {{"alpha", Value(0.5)}}); }});
    gradcheck({"lerp", {{{2, 3}}, {{2, 3}}, {{3}}}, [](const auto& in) { return call("torch.lerp", {in[0], in[1], in[2]}); }});
}

TEST(AutogradGradcheck, SelectionsAndBounds) {
    gradcheck({"where", {{{2, 3}}, {{2, 3}}}, [](const auto& in) {
                   const Value condition = call("Tensor.__gt__", {in[0], Value(0.0)});
                   return call("torch.where", {condition, in[0], in[1]});
               }});
    gradcheck({"where scalar", {{{2, 3}}}, [](const auto& in) {
                   return call("torch.where", {call("Tensor.__lt__", {in[0], Value(0.0)}), Value(0.0), in[0]});
               }});
    gradcheck({"clamp scalars", {{{3, 4}}}, [](const auto& in) { return call("torch.clamp", {in[0], Value(-0.5), Value(0.6)}); }});
    gradcheck({"clamp min", {{{3, 4}}}, [](const auto& in) { return call("Tensor.clamp", {in[0]}, {{"min", Value(0.1)}}); }});
    gradcheck({"clamp tensors", {{{2, 3}}, {{3}}, {{3}, Domain::Positive}},
               [](const auto& in) { return call("torch.clamp", {in[0], in[1], in[2]}); }});
    gradcheck({"masked_fill", {{{2, 3}}, {{}}}, [](const auto& in) {
                   return call("Tensor.masked_fill", {in[0], call("Tensor.__gt__", {in[0], Value(0.2)}), in[1]});
               }});
}

TEST(AutogradGradcheck, Reductions) {
    auto dimCase = [](const std::string& op, KeywordArgs kwargs, Shape shape = {3, 4}) {
        return GradCase{op, {{shape}}, [op, kwargs](const auto& in) { return call(op, {in[0]}, kwargs); }};
    };
    gradcheck(dimCase("torch.sum", {}));
    gradcheck(dimCase("torch.sum", {{"dim", Value(1)}}));
    gradcheck(dimCase("torch.sum", {{"dim", list({Value(0), Value(2)})}, {"keepdim", Value(true)}}, {2, 3, 2}));
    gradcheck(dimCase("torch.mean", {}));
    gradcheck(dimCase("torch.mean", {{"dim", Value(-1)}, {"keepdim", Value(true)}}));
    gradcheck(dimCase("torch.amax", {{"dim", Value(1)}}));
    gradcheck(dimCase("torch.amin", {{"dim", Value(0)}, {"keepdim", Value(true)}}));
    gradcheck(dimCase("torch.max", {}));
    gradcheck(dimCase("torch.min", {}));
    gradcheck(dimCase("torch.max", {{"dim", Value(1)}}));
    gradcheck(dimCase("torch.min", {{"dim", Value(0)}, {"keepdim", Value(true)}}));
    gradcheck(dimCase("torch.var", {}));
    gradcheck(dimCase("torch.var", {{"dim", Value(1)}, {"correction", Value(0)}}));
    gradcheck(dimCase("torch.std", {{"dim", Value(0)}, {"keepdim", Value(true)}}));
    gradcheck(dimCase("torch.std", {}));
    gradcheck(dimCase("torch.softmax", {{"dim", Value(1)}}));
    gradcheck(dimCase("F.softmax", {{"dim", Value(0)}}));
    gradcheck(dimCase("torch.log_softmax", {{"dim", Value(-1)}}));
    gradcheck(dimCase("F.log_softmax", {{"dim", Value(0)}}, {2, 3, 2}));
    gradcheck(dimCase("torch.logsumexp", {{"dim", Value(1)}}));
    gradcheck(dimCase("torch.cumsum", {{"dim", Value(1)}}));
    gradcheck(dimCase("torch.norm", {}));
    gradcheck(dimCase("torch.linalg.vector_norm", {{"ord", Value(3.0)}, {"dim", Value(1)}}));
}

TEST(AutogradGradcheck, MatrixProducts) {
    auto product = [](const std::string& op, Shape a, Shape b) { return binaryCase(op, std::move(a), std::move(b)); };
    gradcheck(product("torch.matmul", {2, 3}, {3, 4}));
    gradcheck(product("torch.matmul", {3}, {3, 4}));
    gradcheck(product("torch.matmul", {2, 3}, {3}));
    gradcheck(product("torch.matmul", {3}, {3}));
    gradcheck(product("torch.matmul", {2, 2, 3}, {3, 2}));
    gradcheck(product("torch.matmul", {2, 1, 2, 3}, {3, 3, 2}));
    gradcheck(product("Tensor.__matmul__", {2, 2, 3}, {2, 3, 2}));
    gradcheck(product("torch.mm", {2, 3}, {3, 2}));
    gradcheck(product("torch.bmm", {2, 2, 3}, {2, 3, 4}));
    gradcheck(product("torch.mv", {2, 3}, {3}));
    gradcheck(product("torch.dot", {3}, {3}));
    gradcheck(product("torch.outer", {3}, {2}));
    gradcheck({"addmm", {{{2}}, {{2, 3}}, {{3, 2}}},
               [](const auto& in) { return call("torch.addmm", {in[0], in[1], in[2]}, {{"beta", Value(0.5)}, {"alpha", Value(2.0)}}); }});
    gradcheck({"linear", {{{4, 3}}, {{2, 3}}, {{2}}}, [](const auto& in) { return call("F.linear", {in[0], in[1], in[2]}); }});
    gradcheck({"linear 3-D", {{{2, 2, 3}}, {{2, 3}}}, [](const auto& in) { return call("F.linear", {in[0], in[1]}); }});
}

TEST(AutogradGradcheck, ShapeOps) {
    auto viewCase = [](const std::string& name, Shape shape, std::function<Value(const Value&)> f) {
        return GradCase{name, {{shape}}, [f](const auto& in) { return f(in[0]); }};
    };
    gradcheck(viewCase("view", {2, 3}, [](const Value& x) { return call("Tensor.view", {x, Value(3), Value(2)}); }));
    gradcheck(viewCase("reshape of transpose", {2, 3}, [](const Value& x) {
        return call("Tensor.reshape", {call("Tensor.t", {x}), Value(-1)});
    }));
    gradcheck(viewCase("permute", {2, 3, 2}, [](const Value& x) { return call("Tensor.permute", {x, Value(2), Value(0), Value(1)}); }));
    gradcheck(viewCase("transpose", {2, 3, 2}, [](const Value& x) { return call("Tensor.transpose", {x, Value(0), Value(2)}); }));
    gradcheck(viewCase("contiguous", {2, 3}, [](const Value& x) { return call("Tensor.contiguous", {call("Tensor.t", {x})}); }));
    gradcheck(viewCase("T and mT", {2, 3}, [](const Value& x) { return call("Tensor.mT", {call("Tensor.T", {x})}); }));
    gradcheck(viewCase("unsqueeze squeeze", {2, 3}, [](const Value& x) {
        return call("Tensor.squeeze", {call("Tensor.unsqueeze", {x, Value(1)}), Value(1)});
    }));
    gradcheck(viewCase("squeeze all", {2, 1, 3}, [](const Value& x) { return call("torch.squeeze", {x}); }));
    gradcheck(viewCase("expand", {2, 1}, [](const Value& x) { return call("Tensor.expand", {x, Value(3), Value(2), Value(4)}); }));
    gradcheck(viewCase("flatten", {2, 3, 2}, [](const Value& x) { return call("torch.flatten", {x, Value(1)}); }));
    gradcheck(viewCase("movedim", {2, 3, 2}, [](const Value& x) { return call("torch.movedim", {x, Value(0), Value(2)}); }));
    gradcheck(viewCase("split", {5, 2}, [](const Value& x) { return call("torch.split", {x, Value(2)}); }));
    gradcheck(viewCase("split first only", {5, 2}, [](const Value& x) { return call("torch.split", {x, Value(2)}).items()[0]; }));
    gradcheck(viewCase("split sizes", {2, 5}, [](const Value& x) { return call("Tensor.split", {x, list({Value(1), Value(4)}), Value(1)}); }));
    gradcheck(viewCase("chunk", {2, 5}, [](const Value& x) { return call("torch.chunk", {x, Value(3), Value(1)}); }));
    gradcheck(viewCase("unbind", {3, 2}, [](const Value& x) { return call("torch.unbind", {x, Value(1)}); }));
    gradcheck(viewCase("narrow", {4, 3}, [](const Value& x) { return call("torch.narrow", {x, Value(0), Value(1), Value(2)}); }));
    gradcheck(viewCase("select", {4, 3}, [](const Value& x) { return call("torch.select", {x, Value(1), Value(-1)}); }));
    gradcheck(viewCase("triu", {3, 4}, [](const Value& x) { return call("torch.triu", {x, Value(1)}); }));
    gradcheck(viewCase("tril", {3, 4}, [](const Value& x) { return call("torch.tril", {x}); }));
    gradcheck(viewCase("repeat", {2, 3}, [](const Value& x) { return call("Tensor.repeat", {x, Value(2), Value(1), Value(2)}); }));
    gradcheck(viewCase("flip", {2, 3}, [](const Value& x) { return call("torch.flip", {x, list({Value(1)})}); }));
    gradcheck({"cat", {{{2, 3}}, {{1, 3}}}, [](const auto& in) { return call("torch.cat", {list({in[0], in[1], in[0]})}); }});
    gradcheck({"cat dim 1", {{{2, 3}}, {{2, 1}}}, [](const auto& in) { return call("torch.cat", {list({in[0], in[1]}), Value(-1)}); }});
    gradcheck({"stack", {{{2, 3}}, {{2, 3}}}, [](const auto& in) { return call("torch.stack", {list({in[0], in[1]}), Value(1)}); }});
    gradcheck({"hstack vstack", {{{2}}, {{3}}}, [](const auto& in) {
                   const Value row = call("torch.hstack", {list({in[0], in[1]})});
                   return call("torch.vstack", {list({row, call("Tensor.__mul__", {row, row})})});
               }});
}

TEST(AutogradGradcheck, Indexing) {
    auto index = [](const std::string& name, Shape shape, Value idx) {
        return GradCase{name, {{shape}}, [idx](const auto& in) { return call("Tensor.__getitem__", {in[0], idx}); }};
    };
    gradcheck(index("int", {3, 4}, Value(1)));
    gradcheck(index("slice step", {5, 2}, Value(Slice{1, std::nullopt, 2})));
    gradcheck(index("tuple with None and ellipsis", {2, 3, 4}, Value::tuple({Value(EllipsisTag{}), Value(), Value(Slice{0, 2, std::nullopt})})));
    gradcheck(index("repeated tensor index", {4, 2}, longs({3, 0, 3, 1})));
    gradcheck(index("two tensor indices", {3, 4}, Value::tuple({longs({0, 2, 2}), longs({1, 1, 3})})));
    gradcheck({"bool mask", {{{3, 4}}}, [](const auto& in) {
                   return call("Tensor.__getitem__", {in[0], call("Tensor.__gt__", {in[0], Value(0.0)})});
               }});
    gradcheck({"index_select", {{{4, 3}}}, [](const auto& in) { return call("torch.index_select", {in[0], Value(0), longs({2, 0, 2})}); }});
    gradcheck({"gather", {{{2, 3}}}, [](const auto& in) {
                   return call("torch.gather", {in[0], Value(1), Value(fromInts({0, 2, 2, 1, 1, 0}, {2, 3}))});
               }});
    gradcheck({"masked_select", {{{2, 3}}}, [](const auto& in) {
                   return call("torch.masked_select", {in[0], call("Tensor.__lt__", {in[0], Value(0.5)})});
               }});
    // x[idx] = v on a non-leaf: the overwritten part of x gets no gradient, v gets the gradient of where it went.
    gradcheck({"setitem", {{{3, 4}}, {{4}}}, [](const auto& in) {
                   const Value x = call("Tensor.__mul__", {in[0], Value(1.0)});
                   call("Tensor.__setitem__", {x, Value(1), call("Tensor.__mul__", {in[1], in[1]})});
                   return x;
               }});
    gradcheck({"setitem advanced", {{{3, 4}}, {{2, 4}}}, [](const auto& in) {
                   const Value x = call("Tensor.clone", {in[0]});
                   call("Tensor.__setitem__", {x, longs({2, 0}), in[1]});
                   return x;
               }});
    gradcheck({"index_put_", {{{4}}, {{2}}}, [](const auto& in) {
                   const Value x = call("Tensor.clone", {in[0]});
                   return call("Tensor.index_put_", {x, list({longs({1, 3})}), in[1]}, {{"accumulate", Value(true)}});
               }});
}

TEST(AutogradGradcheck, InPlaceOpsOnNonLeaves) {
    gradcheck({"add_ mul_ sub_ div_", {{{2, 3}}, {{3}, Domain::Positive}}, [](const auto& in) {
                   const Value x = call("Tensor.__mul__", {in[0], Value(2.0)});
                   call("Tensor.add_", {x, in[1]});
                   call("Tensor.mul_", {x, in[1]});
                   call("Tensor.__isub__", {x, in[0]});
                   call("Tensor.div_", {x, in[1]});
                   return call("Tensor.tanh_", {x});
               }});
    gradcheck({"copy_ clamp_ masked_fill_", {{{2, 3}}, {{3}}}, [](const auto& in) {
                   const Value y = call("Tensor.__add__", {in[0], Value(0.0)});
                   call("Tensor.copy_", {y, in[1]});
                   call("Tensor.clamp_", {y, Value(-0.5), Value(0.5)});
                   const Value z = call("Tensor.__mul__", {in[0], in[0]});
                   call("Tensor.masked_fill_", {z, call("Tensor.__gt__", {z, Value(0.5)}), Value(0.0)});
                   return list({y, z});
               }});
}

TEST(AutogradGradcheck, InPlaceOpsOnViewsUpdateTheBase) {
    gradcheck({"mul_ on a row", {{{3, 4}}, {{4}}}, [](const auto& in) {
                   const Value x = call("Tensor.__mul__", {in[0], in[0]});
                   const Value row = call("Tensor.__getitem__", {x, Value(1)});
                   call("Tensor.mul_", {row, in[1]});
                   return list({x, call("Tensor.__mul__", {row, Value(2.0)})});
               }});
    gradcheck({"x[:, 1:] += y on a transposed view", {{{2, 3}}, {{3, 1}}}, [](const auto& in) {
                   const Value x = call("Tensor.__add__", {in[0], Value(1.0)});
                   const Value columns = call("Tensor.__getitem__", {call("Tensor.t", {x}), Value(Slice{1, std::nullopt, std::nullopt})});
                   call("Tensor.__iadd__", {columns, call("Tensor.__getitem__", {in[1], Value(Slice{1, std::nullopt, std::nullopt})})});
                   return call("Tensor.exp", {x});
               }});
}

TEST(AutogradGradcheck, NnFunctional) {
    gradcheck({"layer_norm", {{{2, 3, 4}}, {{4}}, {{4}}}, [](const auto& in) {
                   return call("F.layer_norm", {in[0], list({Value(4)}), in[1], in[2]});
               }});
    gradcheck({"layer_norm 2 dims", {{{2, 3, 4}}}, [](const auto& in) { return call("F.layer_norm", {in[0], list({Value(3), Value(4)})}); }});
    gradcheck({"embedding", {{{5, 3}}}, [](const auto& in) { return call("F.embedding", {Value(fromInts({1, 4, 1, 0, 2, 1}, {2, 3})), in[0]}); }});
    gradcheck({"sdpa", {{{2, 3, 4}}, {{2, 5, 4}}, {{2, 5, 3}}}, [](const auto& in) {
                   return call("F.scaled_dot_product_attention", {in[0], in[1], in[2]});
               }});
    gradcheck({"sdpa causal scaled", {{{1, 2, 4, 3}}, {{1, 2, 4, 3}}, {{1, 2, 4, 2}}}, [](const auto& in) {
                   return call("F.scaled_dot_product_attention", {in[0], in[1], in[2]}, {{"is_causal", Value(true)}, {"scale", Value(0.7)}});
               }});
    gradcheck({"sdpa float mask", {{{3, 4}}, {{5, 4}}, {{5, 2}}, {{3, 5}}}, [](const auto& in) {
                   return call("F.scaled_dot_product_attention", {in[0], in[1], in[2], in[3]});
               }});
    for (const char* reduction : {"mean", "sum", "none"}) {
        gradcheck({std::string("mse ") + reduction, {{{2, 3}}, {{3}}}, [reduction](const auto& in) {
                       return call("F.mse_loss", {in[0], call("Tensor.expand", {in[1], Value(2), Value(3)})}, {{"reduction", Value(reduction)}});
                   }});
        gradcheck({std::string("cross_entropy ") + reduction, {{{4, 3}}}, [reduction](const auto& in) {
                       return call("F.cross_entropy", {in[0], longs({2, 0, 1, 2})}, {{"reduction", Value(reduction)}, {"ignore_index", Value(1)}});
                   }});
        gradcheck({std::string("nll ") + reduction, {{{3, 4}}}, [reduction](const auto& in) {
                       return call("F.nll_loss", {in[0], longs({3, 0, 1})}, {{"reduction", Value(reduction)}});
                   }});
    }
    gradcheck({"cross_entropy 1-D", {{{4}}}, [](const auto& in) { return call("F.cross_entropy", {in[0], Value(fromInts({2}, {}))}); }});
    gradcheck({"cross_entropy spatial", {{{2, 3, 2}}}, [](const auto& in) {
                   return call("F.cross_entropy", {in[0], Value(fromInts({0, 2, 1, 1}, {2, 2}))});
               }});
    gradcheck({"cross_entropy probabilities", {{{2, 3}}, {{2, 3}, Domain::Positive}}, [](const auto& in) {
                   return call("F.cross_entropy", {in[0], in[1]});
               }});
}

TEST(AutogradGradcheck, ConversionsKeepTheInputDtype) {
    Tensor x = makeInput({2, 3}, Domain::Signed, 0);
    x.setRequiresGrad(true);
    const Value y = call("Tensor.sum", {call("Tensor.float", {call("Tensor.__mul__", {Value(x), Value(2.0)})})});
    EXPECT_EQ(y.toTensor().dtype(), DType::Float32);
    call("Tensor.backward", {y});
    EXPECT_EQ(gradOf(x).dtype(), DType::Float64);
    EXPECT_EQ(toDoubles(gradOf(x)), std::vector<double>(6, 2.0));
    Tensor h = makeInput({3}, Domain::Signed, 1);
    h = to(h, DType::Float32);
    h.setRequiresGrad(true);
    call("Tensor.backward", {call("Tensor.sum", {call("Tensor.half", {Value(h)})})});
    EXPECT_EQ(gradOf(h).dtype(), DType::Float32);
    EXPECT_EQ(toDoubles(gradOf(h)), std::vector<double>(3, 1.0));
}

TEST(AutogradGradcheck, EmbeddingPaddingRowGetsNoGradient) {
    Tensor weight = makeInput({4, 2}, Domain::Signed, 0);
    weight.setRequiresGrad(true);
    const Value out = call("F.embedding", {Value(fromInts({1, 0, 1, 3}, {4})), Value(weight)}, {{"padding_idx", Value(1)}});
    call("Tensor.backward", {call("Tensor.sum", {out})});
    EXPECT_EQ(toDoubles(gradOf(weight)), (std::vector<double>{1, 1, 0, 0, 0, 0, 1, 1}));
}

TEST(AutogradGradcheck, DropoutScalesTheKeptElements) {
    Tensor x = makeInput({200}, Domain::Positive, 0);
    x.setRequiresGrad(true);
    const Value y = call("F.dropout", {Value(x), Value(0.25)});
    call("Tensor.backward", {call("Tensor.sum", {y})});
    const std::vector<double> grads = toDoubles(gradOf(x)), outputs = toDoubles(y.toTensor()), inputs = toDoubles(x);
    int kept = 0;
    for (size_t i = 0; i < grads.size(); ++i) {
        // Each element is either dropped (output and gradient 0) or kept (both scaled by 1 / (1 - p)).
        EXPECT_NEAR(grads[i] * inputs[i], outputs[i], 1e-12);
        EXPECT_TRUE(grads[i] == 0.0 || std::abs(grads[i] - 1 / 0.75) < 1e-12);
        kept += grads[i] != 0.0;
    }
    EXPECT_GT(kept, 100);
    EXPECT_LT(kept, 200);
}

}  // namespace
}  // namespace eng::tensor
