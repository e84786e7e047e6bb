// torch's runtime queries and checks: torch.finfo / torch.iinfo (a dtype's numeric limits, PyTorch's reprs and
// TypeErrors), the torch._check family, torch.cond (the branch a predicate picks), torch.use_deterministic_algorithms and its queries, and the dynamic-shape
// marks of torch._dynamo (mark_dynamic, maybe_mark_dynamic, mark_static_address) that the capture engine reads.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tensor/dtype.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

struct FloatLimits {
    double eps, max, smallestNormal, resolution;
};

template <typename T>
FloatLimits limitsOf() {
    using L = std::numeric_limits<T>;
    return {static_cast<double>(L::epsilon()), static_cast<double>(L::max()), static_cast<double>(L::min()),
            std::pow(10.0, -L::digits10)};
}

FloatLimits floatLimits(tensor::DType dtype) {
    switch (dtype) {
        case tensor::DType::Float16: return {0.0009765625, 65504.0, 6.103515625e-05, 0.001};
        case tensor::DType::BFloat16: return {0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01};
        case tensor::DType::Float32: return limitsOf<float>();
        default: return limitsOf<double>();
    }
}

std::pair<int64_t, int64_t> integerRange(tensor::DType dtype) {
    switch (dtype) {
        case tensor::DType::UInt8: return {0, 255};
        case tensor::DType::Int8: return {-128, 127};
        case tensor::DType::Int16: return {-32768, 32767};
        case tensor::DType::Int32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
        default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    }
}

/// `%g` as C++ streams print doubles: PyTorch builds the finfo/iinfo reprs with an ostringstream.
std::string streamed(double v) { return fmt::format("{:g}", v); }

tensor::DType dtypeArgument(Interpreter& vm, CallArgs& a, const char* function) {
    std::optional<Value> type = a.positional.size() > 1 ? std::optional<Value>(a.positional[1]) : a.take("type");
    if (!type) {
        if (std::string(function) == "finfo") return tensor::kDefaultFloat;
        typeError("iinfo() missing 1 required positional arguments: \"type\"");
    }
    if (!type->is(Kind::DType))
        typeError(fmt::format("{}(): argument 'type' (position 1) must be torch.dtype, not {}", function, vm.classOf(*type)->name));
    return type->as<DTypeObject>().value;
}

/// torch.finfo / torch.iinfo: classes whose instances carry the limits as attributes, equal when their dtypes are.
void defineTypeInfo(Interpreter& vm, ModuleObject& torch, const std::string& name) {
    auto cls = vm.defineClass(name, "object");
    cls->module = "torch";
    const bool floating = name == "finfo";
    cls->dict["__new__"] = makeNative(name, [cls, floating, name](Interpreter& m, CallArgs& a) {
        const tensor::DType dtype = dtypeArgument(m, a, name.c_str());
        auto info = std::make_shared<InstanceObject>(cls);
        auto& attributes = info->attributes;
        attributes["bits"] = Value(static_cast<int64_t>(tensor::itemSize(dtype) * 8));
        attributes["dtype"] = makeStr(std::string(tensor::dtypeName(dtype)));
        std::string text;
        if (floating) {
            if (!tensor::isFloating(dtype))
                typeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'");
            const FloatLimits l = floatLimits(dtype);
            attributes["eps"] = Value(l.eps);
            attributes["max"] = Value(l.max);
            attributes["min"] = Value(-l.max);
            attributes["smallest_normal"] = Value(l.smallestNormal);
            attributes["tiny"] = Value(l.smallestNormal);
            attributes["resolution"] = Value(l.resolution);
            text = fmt::format("finfo(resolution={}, min={}, max={}, eps={}, smallest_normal={}, tiny={}, dtype={})", streamed(l.resolution),
                               streamed(-l.max), streamed(l.max), streamed(l.eps), streamed(l.smallestNormal), streamed(l.smallestNormal),
                               tensor::dtypeName(dtype));
        } else {
            if (dtype == tensor::DType::Bool) typeError("torch.bool is not supported by torch.iinfo");
            if (!tensor::isIntegral(dtype, false))
                typeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'");
            const auto [low, high] = integerRange(dtype);
            attributes["min"] = Value(low);
            attributes["max"] = Value(high);
            text = fmt::format("iinfo(min={}, max={}, dtype={})", streamed(static_cast<double>(low)), streamed(static_cast<double>(high)),
                               tensor::dtypeName(dtype));
        }
        attributes["_repr"] = makeStr(text);
        return Value(info);
    });
    cls->dict["__repr__"] = makeNative("__repr__", [](Interpreter&, CallArgs& a) {
        return a.positional.at(0).as<InstanceObject>().attributes.at("_repr");
    });
    cls->dict["__eq__"] = makeNative("__eq__", [cls](Interpreter&, CallArgs& a) {
        const Value& other = a.positional.at(1);
        if (!other.is(Kind::Instance) || other.as<InstanceObject>().cls != cls) return Value(false);
        return Value(a.positional[0].as<InstanceObject>().attributes.at("dtype").str() == other.as<InstanceObject>().attributes.at("dtype").str());
    });
    torch.attributes[name] = Value(cls);
}

/// torch._check and its siblings: raise `exception` with the message (a callable's result) when cond is False.
Value checkCondition(Interpreter& vm, CallArgs& a, const std::string& exception) {
    std::optional<Value> cond = a.positional.empty() ? a.take("cond") : std::optional<Value>(a.positional[0]);
    std::optional<Value> message = a.positional.size() > 1 ? std::optional<Value>(a.positional[1]) : a.take("message");
    if (!cond) typeError("_check() missing 1 required positional argument: 'cond'");
    if (!cond->is(Kind::Bool)) typeError(fmt::format("cond must be a bool, but got {}", vm.repr(Value(vm.classOf(*cond)))));
    if (cond->asBool()) return Value();
    if (!message || message->isNone())
        raise(exception, "Expected cond to be True, but got False. (Could this error message be improved? If so, please report an "
                         "enhancement request to PyTorch.)");
    const bool callable = message->is(Kind::Function) || message->is(Kind::BoundMethod) || message->is(Kind::Native) ||
                          message->is(Kind::Class) || (message->is(Kind::Instance) && vm.findAttr(*message, "__call__"));
    if (!callable) typeError("message must be a callable");
    raise(exception, vm.str(vm.call(*message, {})));
}

/// torch.cond(pred, true_fn, false_fn, operands=()): the branch pred picks, called with the operands. The capture
/// engine inlines the branch of a Python predicate and keeps a tensor predicate's choice for run time.
Value torchCond(Interpreter& vm, CallArgs& a) {
    static const char* const names[] = {"pred", "true_fn", "false_fn", "operands"};
    ValueList args;
    for (size_t i = 0; i < 4; ++i) {
        std::optional<Value> v = i < a.positional.size() ? std::optional<Value>(a.positional[i]) : a.take(names[i]);
        if (!v && i == 3) v = makeTuple({});
        if (!v) typeError(fmt::format("cond() missing 1 required positional argument: '{}'", names[i]));
        args.push_back(*v);
    }
    const Value& pred = args[0];
    if (!(pred.is(Kind::Bool) || pred.is(Kind::Int) || (pred.is(Kind::Tensor) && pred.as<TensorObject>().value.numel() == 1)))
        raise("RuntimeError", fmt::format("Expected pred to be bool or single-element tensor, but got {}.", vm.repr(pred)));
    const Value& operands = args[3];
    if (!operands.is(Kind::Tuple) && !operands.is(Kind::List))
        raise("RuntimeError", fmt::format("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of tensor "
                                          "leaves, but got {}.", vm.repr(operands)));
    ValueList items = operands.is(Kind::Tuple) ? operands.as<TupleObject>().items : operands.as<ListObject>().items;
    return vm.call(vm.truthy(pred) ? args[1] : args[2], std::move(items));
}

struct DeterministicState {
    bool enabled = false;
    bool warnOnly = false;
};
DeterministicState& deterministic() {
    static DeterministicState state;
    return state;
}

/// The dims of `t` named by `index` (an int or a list of ints), wrapped and checked as torch._dynamo does.
std::vector<int64_t> markedDims(Interpreter& vm, const Value& t, const Value& index) {
    const int64_t rank = t.tensor().dim();
    std::vector<int64_t> dims;
    ValueList items = index.is(Kind::Int) ? ValueList{index} : vm.toList(index);
    for (const Value& item : items) {
        int64_t d = item.asInt();
        if (d < -rank || d >= rank) raise("AssertionError", fmt::format("Dimension index {} out of range for tensor with {} dims", d, rank));
        dims.push_back(d < 0 ? d + rank : d);
    }
    return dims;
}

/// mark_dynamic / maybe_mark_dynamic: the dims join the tensor's marks, which the capture engine makes symbolic.
NativeFn markDims(bool strict) {
    return [strict](Interpreter& vm, CallArgs& a) {
        if (a.positional.size() < 2) typeError("mark_dynamic() missing 1 required positional argument: 'index'");
        const Value& t = a.positional[0];
        if (!t.is(Kind::Tensor)) return Value();  // Dynamo marks only tensors; other values pass through unmarked
        for (int64_t d : markedDims(vm, t, a.positional[1])) {
            auto& marks = t.as<TensorObject>().dynamicMarks;
            if (std::find(marks.begin(), marks.end(), d) == marks.end()) marks.push_back(d);
            (void)strict;  // a maybe-mark may specialize again; the capture engine reads both kinds the same
        }
        return Value();
    };
}

}  // namespace

void installTorchRuntime(Interpreter& vm, ModuleObject& torch, ModuleObject& dynamo, ModuleObject& compiler) {
    defineTypeInfo(vm, torch, "finfo");
    defineTypeInfo(vm, torch, "iinfo");
    for (auto [name, exception] : {std::pair{"_check", "RuntimeError"}, std::pair{"_check_index", "IndexError"},
                                   std::pair{"_check_value", "ValueError"}, std::pair{"_check_type", "TypeError"},
                                   std::pair{"_check_not_implemented", "NotImplementedError"}}) {
        std::string error = exception;
        torch.attributes[name] = makeNative(name, [error](Interpreter& m, CallArgs& a) { return checkCondition(m, a, error); });
    }
    torch.attributes["_check_is_size"] = makeNative("_check_is_size", [](Interpreter& m, CallArgs& a) {
        Value size = a.positional.at(0);
        CallArgs check;
        check.positional = {Value(size.asInt() >= 0)};
        if (a.positional.size() > 1) check.positional.push_back(a.positional[1]);
        return checkCondition(m, check, "RuntimeError");
    });
    torch.attributes["cond"] = makeNative("cond", torchCond);
    torch.attributes["use_deterministic_algorithms"] = makeNative("use_deterministic_algorithms", [](Interpreter& m, CallArgs& a) {
        std::optional<Value> mode = a.positional.empty() ? a.take("mode") : std::optional<Value>(a.positional[0]);
        std::optional<Value> warnOnly = a.take("warn_only");
        if (!mode || !mode->is(Kind::Bool))
            typeError("use_deterministic_algorithms(): argument 'mode' (position 1) must be bool");
        deterministic() = {mode->asBool(), warnOnly && m.truthy(*warnOnly)};
        return Value();
    });
    torch.attributes["are_deterministic_algorithms_enabled"] =
        makeNative("are_deterministic_algorithms_enabled", [](Interpreter&, CallArgs&) { return Value(deterministic().enabled); });
    torch.attributes["is_deterministic_algorithms_warn_only_enabled"] = makeNative(
        "is_deterministic_algorithms_warn_only_enabled", [](Interpreter&, CallArgs&) { return Value(deterministic().warnOnly); });
    dynamo.attributes["mark_dynamic"] = makeNative("mark_dynamic", markDims(true));
    dynamo.attributes["maybe_mark_dynamic"] = makeNative("maybe_mark_dynamic", markDims(false));
    dynamo.attributes["mark_static"] = makeNative("mark_static", [](Interpreter& m, CallArgs& a) {
        // mark_static(t, index=None): the given dims (all of them without one) stay static.
        std::optional<Value> index = a.positional.size() > 1 ? std::optional<Value>(a.positional[1]) : a.take("index");
        const Value& t = a.positional.at(0);
        if (!t.is(Kind::Tensor)) return Value();
        std::vector<int64_t> dims;
        if (index && !index->isNone()) {
            dims = markedDims(m, t, *index);
        } else {
            for (int64_t d = 0; d < t.tensor().dim(); ++d) dims.push_back(d);
        }
        auto& pins = t.as<TensorObject>().staticMarks;
        for (int64_t d : dims)
            if (std::find(pins.begin(), pins.end(), d) == pins.end()) pins.push_back(d);
        return Value();
    });
    dynamo.attributes["mark_static_address"] = makeNative("mark_static_address", [](Interpreter&, CallArgs& a) {
        const Value& t = a.positional.at(0);
        if (!t.is(Kind::Tensor)) typeError("mark_static_address expects a tensor");
        t.as<TensorObject>().staticAddress = true;
        return Value();
    });
    // Outside torch.export nothing is exporting; the capture engine folds it to False inside a trace too.
    compiler.attributes["is_exporting"] = makeNative("is_exporting", [](Interpreter&, CallArgs&) { return Value(false); });
}

}  // namespace eng::vm
