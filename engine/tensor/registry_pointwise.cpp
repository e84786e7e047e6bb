// Registry entries for pointwise ops: unary math and activations (torch.x, Tensor.x, Tensor.x_, F.x), binary
// arithmetic/comparison/logical ops with their Tensor and Scalar overloads, where, clamp, masked_fill, fill_.
#include <algorithm>
#include <cmath>
#include <map>
#include <variant>

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/indexing.h"
#include "tensor/pointwise.h"
#include "tensor/shape.h"
#include "tensor/registry_support.h"

namespace eng::tensor {

namespace {

Operand operandOf(const Value& v) { return v.isTensor() ? Operand(v.toTensor()) : Operand(v.toScalar()); }

// div's op for the rounding_mode argument (index 2) of its out-of-place, out= and in-place forms.
BinaryOp divOpOf(const Args& a) {
    const std::optional<std::string> mode = a.optStr(2);
    return divOpFor(mode ? std::optional<std::string_view>(*mode) : std::nullopt);
}

// The ops of ops/unary_math.def and ops/elementwise.def by each name torch has for them: a row's call where
// torch spells it as a plain function (floor_divide, not nn.functional.silu or div(rounding_mode=...)), and
// the Torch aliases.
using ElementwiseOp = std::variant<UnaryOp, BinaryOp>;
std::map<std::string, ElementwiseOp, std::less<>> elementwiseOpsByTorchName() {
    std::map<std::string, ElementwiseOp, std::less<>> byRow, byTorchName;
    auto row = [&](const char* function, std::string_view call, ElementwiseOp op) {
        byRow.emplace(function, op);
        if (call.find_first_of("(.") == std::string_view::npos) byTorchName.emplace(call, op);
    };
#define CWB_UNARY_MATH(Name, function, integers, llvm) row(#function, #function, UnaryOp::Name);
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, bools, kernel, call) row(#function, call, UnaryOp::Name);
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, bools, kernel, call) row(#function, call, BinaryOp::Name);
#define CWB_ELEMENTWISE_ALIAS(alias, function, spelling) \
    if (std::string_view(#spelling) == "Torch") byTorchName.emplace(#alias, byRow.at(#function));
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_ALIAS
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    return byTorchName;
}

// Ops registered below with signatures of their own (decimals, alpha, rounding_mode, inplace, Tensor only).
constexpr std::string_view kOwnSignature[] = {"round", "relu", "add", "sub", "div", "pow", "maximum", "minimum", "fmax", "fmin"};

// Binary ops that take two tensors only (no Scalar overload, no in-place form), as PyTorch has them.
constexpr std::string_view kTensorsOnly[] = {"maximum", "minimum", "fmax", "fmin"};

// Unary ops that torch.nn.functional has too.
constexpr std::string_view kAlsoFunctional[] = {"tanh", "sigmoid"};

// Activations of torch.nn.functional that take an `inplace` flag.
Value activation(const Args& a, UnaryOp op) {
    if (a.boolean(1)) return Value(unaryInPlace(op, a.tensor(0)));
    return Value(unary(op, a.tensor(0)));
}

std::optional<Operand> optionalBound(const Args& a, size_t i) {
    if (a.isNone(i)) return std::nullopt;
    return operandOf(a[i]);
}

}  // namespace

void registerPointwiseOps(OpRegistry& r) {
    const auto opsByTorchName = elementwiseOpsByTorchName();
    for (const auto& [name, elementwiseOp] : opsByTorchName) {
        if (std::ranges::find(kOwnSignature, name) != std::end(kOwnSignature)) continue;
        if (const UnaryOp* unaryOp = std::get_if<UnaryOp>(&elementwiseOp)) {
            const UnaryOp op = *unaryOp;
            std::vector<std::string> names = {fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)};
            if (std::ranges::find(kAlsoFunctional, name) != std::end(kAlsoFunctional)) names.push_back(fmt::format("F.{}", name));
            r.def(names, fmt::format("{}(Tensor self)", name), [op](const Args& a) { return Value(unary(op, a.tensor(0))); },
                  [op](const Args& a, const Tensor& out) { return unaryInto(op, a.tensor(0), out); });
            r.def({fmt::format("Tensor.{}_", name), fmt::format("torch.{}_", name)}, fmt::format("{}_(Tensor self)", name),
                  [op](const Args& a) { return Value(unaryInPlace(op, a.tensor(0))); });
            continue;
        }
        const BinaryOp op = std::get<BinaryOp>(elementwiseOp);
        // logical_* have no Scalar overload in PyTorch (TypeError for numbers).
        const bool tensorOnly = name.starts_with("logical_");
        for (const char* other : {"Tensor", "Scalar"}) {
            if (tensorOnly && std::string_view(other) == "Scalar") continue;
            r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)}, fmt::format("{}(Tensor self, {} other)", name, other),
                  [op](const Args& a) { return Value(binary(op, a.tensor(0), operandOf(a[1]))); },
                  [op](const Args& a, const Tensor& out) { return binaryInto(op, a.tensor(0), operandOf(a[1]), out); });
            r.def({fmt::format("Tensor.{}_", name)}, fmt::format("{}_(Tensor self, {} other)", name, other),
                  [op](const Args& a) { return Value(binaryInPlace(op, a.tensor(0), operandOf(a[1]))); });
        }
    }
    r.def({"torch.round", "Tensor.round"}, "round(Tensor self, *, int decimals=0)", [](const Args& a) {
        if (a.integer(1) == 0) return Value(unary(UnaryOp::Round, a.tensor(0)));
        const Scalar scale(std::pow(10.0, static_cast<double>(a.integer(1))));
        return Value(div(unary(UnaryOp::Round, mul(a.tensor(0), scale)), scale));
    });
    r.def({"Tensor.round_"}, "round_(Tensor self)", [](const Args& a) { return Value(unaryInPlace(UnaryOp::Round, a.tensor(0))); });
    for (const auto& [name, op] : {std::pair{"relu", UnaryOp::Relu}, std::pair{"silu", UnaryOp::Silu}, std::pair{"mish", UnaryOp::Mish}}) {
        const UnaryOp captured = op;
        r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)}, fmt::format("{}(Tensor self)", name),
              [captured](const Args& a) { return Value(unary(captured, a.tensor(0))); },
              [captured](const Args& a, const Tensor& out) { return unaryInto(captured, a.tensor(0), out); });
        r.def({fmt::format("Tensor.{}_", name), fmt::format("torch.{}_", name), fmt::format("F.{}_", name)},
              fmt::format("{}_(Tensor self)", name), [captured](const Args& a) { return Value(unaryInPlace(captured, a.tensor(0))); });
        r.def({fmt::format("F.{}", name)}, fmt::format("{}(Tensor(a! if inplace) input, bool inplace=False)", name),
              [captured](const Args& a) { return activation(a, captured); });
    }
    r.def({"F.gelu", "torch._C._nn.gelu"}, "gelu(Tensor input, str approximate='none')",
          [](const Args& a) { return Value(gelu(a.tensor(0), a.str(1))); });
    r.def({"Tensor.gelu"}, "gelu(Tensor self, *, str approximate='none')", [](const Args& a) { return Value(gelu(a.tensor(0), a.str(1))); });
    r.def({"F.leaky_relu"}, "leaky_relu(Tensor(a! if inplace) input, float negative_slope=0.01, bool inplace=False)", [](const Args& a) {
        Tensor out = leakyRelu(a.tensor(0), a.real(1));
        return Value(a.boolean(2) ? copyInto(a.tensor(0), out) : out);
    });
    r.def({"F.softplus"}, "softplus(Tensor input, float beta=1, float threshold=20)", [](const Args& a) {
        if (a.real(1) == 1.0 && a.real(2) == 20.0) return Value(unary(UnaryOp::Softplus, a.tensor(0)));
        const Tensor scaled = mul(a.tensor(0), a.real(1));
        const Tensor soft = div(unary(UnaryOp::Log1p, unary(UnaryOp::Exp, scaled)), a.real(1));
        return Value(where(gt(scaled, a.real(2)), a.tensor(0), soft));
    });

    for (const char* name : {"add", "sub", "subtract"}) {
        const bool isAdd = std::string_view(name) == "add";
        for (const char* other : {"Tensor", "Scalar"}) {
            r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)},
                  fmt::format("{}(Tensor self, {} other, *, Scalar alpha=1)", name, other), [isAdd](const Args& a) {
                      return Value(isAdd ? add(a.tensor(0), operandOf(a[1]), a.scalar(2)) : sub(a.tensor(0), operandOf(a[1]), a.scalar(2)));
                  },
                  [isAdd](const Args& a, const Tensor& out) {  // alpha != 1 scales `other` first: that path keeps its copy
                      if (!isUnitAlpha(a.scalar(2))) return false;
                      return binaryInto(isAdd ? BinaryOp::Add : BinaryOp::Sub, a.tensor(0), operandOf(a[1]), out);
                  });
            r.def({fmt::format("Tensor.{}_", name)}, fmt::format("{}_(Tensor self, {} other, *, Scalar alpha=1)", name, other),
                  [isAdd](const Args& a) {
                      return Value(isAdd ? addInPlace(a.tensor(0), operandOf(a[1]), a.scalar(2))
                                         : subInPlace(a.tensor(0), operandOf(a[1]), a.scalar(2)));
                  });
        }
    }
    for (const char* name : {"div", "divide"}) {
        for (const char* other : {"Tensor", "Scalar"}) {
            r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)},
                  fmt::format("{}(Tensor self, {} other, *, str? rounding_mode=None)", name, other),
                  [](const Args& a) { return Value(binary(divOpOf(a), a.tensor(0), operandOf(a[1]))); },
                  [](const Args& a, const Tensor& out) {  // an unknown rounding_mode raises before anything is written
                      return binaryInto(divOpOf(a), a.tensor(0), operandOf(a[1]), out);
                  });
            r.def({fmt::format("Tensor.{}_", name)}, fmt::format("{}_(Tensor self, {} other, *, str? rounding_mode=None)", name, other),
                  [](const Args& a) { return Value(binaryInPlace(divOpOf(a), a.tensor(0), operandOf(a[1]))); });
        }
    }
    r.def({"torch.pow", "Tensor.pow"}, "pow(Tensor self, Tensor exponent)", [](const Args& a) { return Value(pow(a.tensor(0), a.tensor(1))); });
    r.def({"torch.pow", "Tensor.pow"}, "pow(Tensor self, Scalar exponent)", [](const Args& a) { return Value(pow(a.tensor(0), a.scalar(1))); });
    r.def({"torch.pow"}, "pow(Scalar self, Tensor exponent)", [](const Args& a) { return Value(pow(a.scalar(0), a.tensor(1))); });
    r.def({"Tensor.pow_"}, "pow_(Tensor self, Any exponent)", [](const Args& a) {
        return Value(copyInto(a.tensor(0), pow(a.tensor(0), operandOf(a[1]))));
    });
    for (const std::string_view name : kTensorsOnly) {
        const BinaryOp op = std::get<BinaryOp>(opsByTorchName.find(name)->second);
        r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)}, fmt::format("{}(Tensor self, Tensor other)", name),
              [op](const Args& a) { return Value(binary(op, a.tensor(0), a.tensor(1))); },
              [op](const Args& a, const Tensor& out) { return binaryInto(op, a.tensor(0), a.tensor(1), out); });
    }

    r.def({"torch.where", "Tensor.where"}, "where(Tensor condition, Any self, Any other)", [](const Args& a) {
        if (a[1].isNone() || a[2].isNone()) fail(ErrorKind::Type, "where() missing required arguments 'self' and 'other'");
        return Value(where(a.tensor(0), operandOf(a[1]), operandOf(a[2])));
    });
    r.def({"torch.where"}, "where(Tensor condition)", [](const Args& a) {
        const Tensor coordinates = nonzero(a.tensor(0));
        std::vector<Tensor> perDim;
        for (int64_t d = 0; d < coordinates.size(1); ++d) perDim.push_back(select(coordinates, 1, d));
        return tupleOf(perDim);
    });
    for (const char* name : {"clamp", "clip"}) {
        r.def({fmt::format("torch.{}", name), fmt::format("Tensor.{}", name)}, fmt::format("{}(Tensor self, Any min=None, Any max=None)", name),
              [](const Args& a) { return Value(clamp(a.tensor(0), optionalBound(a, 1), optionalBound(a, 2))); });
        r.def({fmt::format("Tensor.{}_", name), fmt::format("torch.{}_", name)}, fmt::format("{}_(Tensor self, Any min=None, Any max=None)", name),
              [](const Args& a) { return Value(clampInPlace(a.tensor(0), optionalBound(a, 1), optionalBound(a, 2))); });
    }
    r.def({"torch.clamp_min", "Tensor.clamp_min"}, "clamp_min(Tensor self, Any min)",
          [](const Args& a) { return Value(clamp(a.tensor(0), operandOf(a[1]), std::nullopt)); });
    r.def({"torch.clamp_max", "Tensor.clamp_max"}, "clamp_max(Tensor self, Any max)",
          [](const Args& a) { return Value(clamp(a.tensor(0), std::nullopt, operandOf(a[1]))); });
    r.def({"Tensor.clamp_min_"}, "clamp_min_(Tensor self, Any min)",
          [](const Args& a) { return Value(clampInPlace(a.tensor(0), operandOf(a[1]), std::nullopt)); });
    r.def({"Tensor.clamp_max_"}, "clamp_max_(Tensor self, Any max)",
          [](const Args& a) { return Value(clampInPlace(a.tensor(0), std::nullopt, operandOf(a[1]))); });
    r.def({"torch.masked_fill", "Tensor.masked_fill"}, "masked_fill(Tensor self, Tensor mask, Any value)",
          [](const Args& a) { return Value(maskedFill(a.tensor(0), a.tensor(1), operandOf(a[2]))); });
    r.def({"Tensor.masked_fill_"}, "masked_fill_(Tensor self, Tensor mask, Any value)",
          [](const Args& a) { return Value(maskedFillInPlace(a.tensor(0), a.tensor(1), operandOf(a[2]))); });
    r.def({"Tensor.fill_", "torch.fill_"}, "fill_(Tensor self, Any value)",
          [](const Args& a) { return Value(fillInPlace(a.tensor(0), operandOf(a[1]))); });
    r.def({"Tensor.zero_", "torch.zero_"}, "zero_(Tensor self)",
          [](const Args& a) { return Value(fillInPlace(a.tensor(0), Scalar(int64_t{0}))); });
    r.def({"torch.lerp", "Tensor.lerp"}, "lerp(Tensor self, Tensor end, Any weight)",
          [](const Args& a) { return Value(lerp(a.tensor(0), a.tensor(1), operandOf(a[2]))); });
    r.def({"Tensor.lerp_"}, "lerp_(Tensor self, Tensor end, Any weight)",
          [](const Args& a) { return Value(copyInto(a.tensor(0), lerp(a.tensor(0), a.tensor(1), operandOf(a[2])))); });
    // addcmul / addcdiv: self + value * tensor1 (* or /) tensor2, as PyTorch composes them; the in-place forms write
    // the result back into self.
    r.def({"torch.addcmul", "Tensor.addcmul"}, "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Any value=1)", [](const Args& a) {
        Tensor product = binary(BinaryOp::Mul, a.tensor(1), a.tensor(2));
        return Value(binary(BinaryOp::Add, a.tensor(0), binary(BinaryOp::Mul, product, operandOf(a[3]))));
    });
    r.def({"Tensor.addcmul_"}, "addcmul_(Tensor self, Tensor tensor1, Tensor tensor2, *, Any value=1)", [](const Args& a) {
        Tensor product = binary(BinaryOp::Mul, a.tensor(1), a.tensor(2));
        return Value(copyInto(a.tensor(0), binary(BinaryOp::Add, a.tensor(0), binary(BinaryOp::Mul, product, operandOf(a[3])))));
    });
    r.def({"Tensor.addcdiv_"}, "addcdiv_(Tensor self, Tensor tensor1, Tensor tensor2, *, Any value=1)", [](const Args& a) {
        Tensor quotient = binary(BinaryOp::Div, a.tensor(1), a.tensor(2));
        return Value(copyInto(a.tensor(0), binary(BinaryOp::Add, a.tensor(0), binary(BinaryOp::Mul, quotient, operandOf(a[3])))));
    });
    r.def({"torch.addcdiv", "Tensor.addcdiv"}, "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Any value=1)", [](const Args& a) {
        check(isFloating(a.tensor(1).dtype()) || isFloating(a.tensor(2).dtype()), ErrorKind::Runtime,
              "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of "
              "tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
              ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
              "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
        Tensor quotient = binary(BinaryOp::Div, a.tensor(1), a.tensor(2));
        return Value(binary(BinaryOp::Add, a.tensor(0), binary(BinaryOp::Mul, quotient, operandOf(a[3]))));
    });
    r.def({"torch.isclose", "Tensor.isclose"}, "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)",
          [](const Args& a) { return Value(isclose(a.tensor(0), a.tensor(1), a.real(2), a.real(3), a.boolean(4))); });
    r.def({"torch.allclose", "Tensor.allclose"}, "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False)",
          [](const Args& a) { return Value(allclose(a.tensor(0), a.tensor(1), a.real(2), a.real(3), a.boolean(4))); });
    r.def({"torch.equal", "Tensor.equal"}, "equal(Tensor self, Tensor other)", [](const Args& a) { return Value(equal(a.tensor(0), a.tensor(1))); });
}

}  // namespace eng::tensor
