// Schema parsing, argument binding (positional, keyword, defaults, int[] varargs, type normalisation) and the
// registry that resolves a qualified name to its overloads.
#include "tensor/registry.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ops/in_place.h"
#include "tensor/autocast.h"
#include "tensor/autograd/dispatch.h"
#include "tensor/autograd/grad_mode.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/pointwise.h"
#include "tensor/view_ops.h"

namespace eng::tensor {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Splits at top-level commas (not inside [] or quotes).
std::vector<std::string_view> splitParams(std::string_view s) {
    std::vector<std::string_view> out;
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '[') {
            ++depth;
        } else if (c == ']') {
            --depth;
        } else if (c == ',' && depth == 0) {
            out.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    if (!trim(s.substr(start)).empty()) out.push_back(trim(s.substr(start)));
    return out;
}

Value parseDefault(std::string_view text) {
    text = trim(text);
    if (text == "None") return Value();
    if (text == "True") return Value(true);
    if (text == "False") return Value(false);
    if (text.front() == '\'' || text.front() == '"') return Value(std::string(text.substr(1, text.size() - 2)));
    if (text.front() == '[') {
        ValueList items;
        for (std::string_view item : splitParams(text.substr(1, text.size() - 2))) items.push_back(parseDefault(item));
        return Value::list(std::move(items));
    }
    if (text.find_first_of(".eE") != std::string_view::npos && text != "inf") {
        double d = 0;
        std::from_chars(text.data(), text.data() + text.size(), d);
        return Value(d);
    }
    int64_t i = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
    if (ec != std::errc() || end != text.data() + text.size())
        throw std::logic_error(fmt::format("bad schema default '{}'", text));
    return Value(i);
}

Param::Type parseType(std::string_view base, bool isList) {
    if (isList) {
        if (base == "Tensor") return Param::Type::TensorList;
        if (base == "int") return Param::Type::IntList;
        if (base == "float") return Param::Type::FloatList;
        throw std::logic_error(fmt::format("bad schema list type '{}'", base));
    }
    if (base == "Tensor") return Param::Type::Tensor;
    if (base == "Scalar") return Param::Type::Scalar;
    if (base == "int") return Param::Type::Int;
    if (base == "float") return Param::Type::Float;
    if (base == "bool") return Param::Type::Bool;
    if (base == "ScalarType") return Param::Type::ScalarType;
    if (base == "Device") return Param::Type::Device;
    if (base == "str") return Param::Type::Str;
    if (base == "Any" || base == "Layout" || base == "MemoryFormat" || base == "Generator") return Param::Type::Any;
    throw std::logic_error(fmt::format("bad schema type '{}'", base));
}

std::string_view typeText(Param::Type type) {
    switch (type) {
        case Param::Type::Tensor: return "Tensor";
        case Param::Type::Scalar: return "Number";
        case Param::Type::Int: return "int";
        case Param::Type::Float: return "float";
        case Param::Type::Bool: return "bool";
        case Param::Type::ScalarType: return "torch.dtype";
        case Param::Type::Device: return "torch.device";
        case Param::Type::Str: return "str";
        case Param::Type::Any: return "object";
        case Param::Type::TensorList: return "tuple of Tensors";
        case Param::Type::IntList: return "tuple of ints";
        case Param::Type::FloatList: return "tuple of floats";
    }
    return "object";
}

bool isIntLike(const Value& v) {
    if (v.isInt()) return true;
    return v.isTensor() && v.toTensor().dim() == 0 && isIntegral(v.toTensor().dtype(), false);
}

// The value normalised for the parameter, or nullopt when it doesn't fit.
std::optional<Value> convertArg(const Param& p, const Value& v) {
    if (v.isNone()) {
        if (p.optional || p.type == Param::Type::Any || (p.hasDefault && p.defaultValue.isNone())) return Value();
        return std::nullopt;
    }
    switch (p.type) {
        case Param::Type::Any: return v;
        case Param::Type::Tensor:
            if (v.isTensor()) return v;
            return std::nullopt;
        case Param::Type::Scalar:
            if (v.isNumber()) return v;
            if (v.isTensor() && v.toTensor().dim() == 0) return Value(v.toScalar());
            return std::nullopt;
        case Param::Type::Int:
            if (isIntLike(v)) return Value(v.toInt());
            return std::nullopt;
        case Param::Type::Float:
            if (v.isFloat() || v.isInt() || (v.isTensor() && v.toTensor().dim() == 0 && v.toTensor().dtype() != DType::Bool))
                return Value(v.toDouble());
            return std::nullopt;
        case Param::Type::Bool:
            if (v.isBool()) return v;
            return std::nullopt;
        case Param::Type::ScalarType:
            if (v.kind() == Value::Kind::DType) return v;
            return std::nullopt;
        case Param::Type::Device:
            if (v.kind() == Value::Kind::Device || v.isString() || v.isInt()) return Value(v.toDevice());
            return std::nullopt;
        case Param::Type::Str:
            if (v.isString()) return v;
            return std::nullopt;
        case Param::Type::TensorList: {
            if (!v.isSequence()) return std::nullopt;
            for (const Value& item : v.items())
                if (!item.isTensor()) return std::nullopt;
            return v;
        }
        case Param::Type::IntList: {
            if (isIntLike(v)) return Value::list({Value(v.toInt())});
            if (!v.isSequence()) return std::nullopt;
            ValueList ints;
            for (const Value& item : v.items()) {
                if (!isIntLike(item)) return std::nullopt;
                ints.emplace_back(item.toInt());
            }
            return Value::list(std::move(ints));
        }
        case Param::Type::FloatList: {
            if (v.isNumber() && !v.isBool()) return Value::list({Value(v.toDouble())});
            if (!v.isSequence()) return std::nullopt;
            ValueList reals;
            for (const Value& item : v.items()) {
                if (!item.isNumber() || item.isBool()) return std::nullopt;
                reals.emplace_back(item.toDouble());
            }
            return Value::list(std::move(reals));
        }
    }
    return std::nullopt;
}

// Binds args/kwargs to one schema, or explains why not.
std::optional<std::vector<Value>> bind(const Schema& s, std::span<const Value> args, const KeywordArgs& kwargs,
                                       std::string& why) {
    std::vector<std::optional<Value>> bound(s.params.size());
    size_t next = 0;
    size_t positionalCount = 0;
    for (size_t k = 0; k < s.params.size() && !s.params[k].keywordOnly; ++k) {
        ++positionalCount;
        if (next >= args.size()) continue;
        const Param& p = s.params[k];
        Value given = args[next];
        const bool packInts = s.intListVarargs && p.type == Param::Type::IntList && isIntLike(args[next]);
        if (packInts || (s.tensorListVarargs && p.type == Param::Type::TensorList && args[next].isTensor())) {
            ValueList packed;
            while (next < args.size()) packed.push_back(args[next++]);
            given = Value::tuple(std::move(packed));
        } else {
            ++next;
        }
        std::optional<Value> converted = convertArg(p, given);
        if (!converted) {
            why = fmt::format("{}(): argument '{}' (position {}) must be {}, not {}", s.name, p.name, k + 1, typeText(p.type),
                              given.typeName());
            return std::nullopt;
        }
        bound[k] = std::move(*converted);
    }
    if (next < args.size()) {
        why = fmt::format("{}() takes {} positional argument{} but {} were given", s.name, positionalCount,
                          positionalCount == 1 ? "" : "s", args.size());
        return std::nullopt;
    }
    for (const auto& [name, value] : kwargs) {
        auto it = std::find_if(s.params.begin(), s.params.end(), [&](const Param& p) {
            return p.name == name || (p.name == "self" && name == "input") || (p.name == "input" && name == "self");
        });
        if (it == s.params.end()) {
            why = fmt::format("{}() got an unexpected keyword argument '{}'", s.name, name);
            return std::nullopt;
        }
        const auto k = static_cast<size_t>(it - s.params.begin());
        if (bound[k]) {
            why = fmt::format("{}() got multiple values for argument '{}'", s.name, name);
            return std::nullopt;
        }
        std::optional<Value> converted = convertArg(*it, value);
        if (!converted) {
            why = fmt::format("{}(): argument '{}' must be {}, not {}", s.name, name, typeText(it->type), value.typeName());
            return std::nullopt;
        }
        bound[k] = std::move(*converted);
    }
    std::vector<Value> values;
    for (size_t k = 0; k < s.params.size(); ++k) {
        if (bound[k]) {
            values.push_back(std::move(*bound[k]));
        } else if (s.params[k].hasDefault) {
            values.push_back(s.params[k].defaultValue);
        } else {
            why = fmt::format("{}() missing required argument '{}' (pos {})", s.name, s.params[k].name, k + 1);
            return std::nullopt;
        }
    }
    return values;
}

/// The schema as messages show it: "Tensor(a! if training)? running_mean" reads "Tensor? running_mean".
std::string withoutAliasAnnotations(std::string_view text) {
    std::string out;
    const size_t open = text.find('(');
    out.append(text.substr(0, open == std::string_view::npos ? text.size() : open + 1));
    for (size_t i = out.size(); i < text.size(); ++i) {
        if (text[i] == '(') {
            const size_t close = text.find(')', i);
            if (close != std::string_view::npos && text.substr(i, close - i).find('!') != std::string_view::npos) {
                i = close;
                continue;
            }
        }
        out.push_back(text[i]);
    }
    return out;
}

std::string signatureOf(const Schema& s) {
    const size_t open = s.text.find('(');
    const size_t close = s.text.rfind(')');
    return s.text.substr(open, close - open + 1);
}

}  // namespace

bool writesArgument(const Schema& schema, const Args& args, size_t index) {
    if (index >= schema.params.size() || !schema.params[index].written) return false;
    const std::string& flag = schema.params[index].writtenWhen;
    if (flag.empty()) return true;
    for (size_t k = 0; k < schema.params.size() && k < args.size(); ++k)
        if (schema.params[k].name == flag) return args[k].isBool() && args[k].toBool();
    return false;
}

Schema parseSchema(std::string_view text) {
    Schema s;
    s.text = withoutAliasAnnotations(text);
    const size_t open = text.find('(');
    const size_t close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        throw std::logic_error(fmt::format("bad schema '{}'", text));
    s.name = std::string(trim(text.substr(0, open)));
    bool keywordOnly = false;
    for (std::string_view token : splitParams(text.substr(open + 1, close - open - 1))) {
        if (token == "*") {
            keywordOnly = true;
            continue;
        }
        Param p;
        p.keywordOnly = keywordOnly;
        std::string_view declaration = token;
        if (const size_t eq = token.find('='); eq != std::string_view::npos) {
            declaration = trim(token.substr(0, eq));
            p.hasDefault = true;
            p.defaultValue = parseDefault(token.substr(eq + 1));
        }
        const size_t space = declaration.rfind(' ');
        std::string_view type = trim(declaration.substr(0, space));
        p.name = std::string(trim(declaration.substr(space + 1)));
        if (const size_t annotationStart = type.find('('); annotationStart != std::string_view::npos) {
            // "Tensor(a!)" or "Tensor(a! if training)": the op writes this argument (always, or under the flag).
            const size_t annotationEnd = type.find(')', annotationStart);
            if (annotationEnd == std::string_view::npos) throw std::logic_error(fmt::format("bad alias annotation in schema '{}'", text));
            const std::string_view annotation = type.substr(annotationStart + 1, annotationEnd - annotationStart - 1);
            if (annotation.find('!') == std::string_view::npos)
                throw std::logic_error(fmt::format("bad alias annotation in schema '{}'", text));
            p.written = true;
            if (const size_t when = annotation.find(" if "); when != std::string_view::npos)
                p.writtenWhen = std::string(trim(annotation.substr(when + 4)));
            const std::string_view rest = type.substr(annotationEnd + 1);
            type = type.substr(0, annotationStart);
            if (rest == "?") p.optional = true;
        }
        if (!type.empty() && type.back() == '?') {
            p.optional = true;
            type.remove_suffix(1);
        }
        bool isList = false;
        if (const size_t bracket = type.find('['); bracket != std::string_view::npos) {
            isList = true;
            type = type.substr(0, bracket);
        }
        p.type = parseType(type, isList);
        if (p.name.starts_with('*') && p.type == Param::Type::TensorList) {  // Python's *tensors
            p.name.erase(0, 1);
            s.tensorListVarargs = true;
        }
        s.params.push_back(std::move(p));
    }
    if (!s.params.empty() && ops::schemaWritesSelf(s.name)) s.params[0].written = true;  // self, or nn.init's tensor
    for (const Param& p : s.params)
        if (!p.writtenWhen.empty() &&
            std::none_of(s.params.begin(), s.params.end(), [&](const Param& q) { return q.name == p.writtenWhen && q.type == Param::Type::Bool; }))
            throw std::logic_error(fmt::format("schema '{}': '{}' is written when '{}', which is not a bool parameter", text, p.name, p.writtenWhen));
    size_t positional = 0;
    const Param* onlyPositional = nullptr;
    for (const Param& p : s.params) {
        if (p.keywordOnly || p.name == "self") continue;
        ++positional;
        onlyPositional = &p;
    }
    s.intListVarargs = positional == 1 && onlyPositional->type == Param::Type::IntList;
    return s;
}

std::optional<Scalar> Args::optScalar(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return scalar(i);
}
std::optional<int64_t> Args::optInteger(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return integer(i);
}
std::optional<double> Args::optReal(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return real(i);
}
std::optional<bool> Args::optBoolean(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return boolean(i);
}
std::vector<int64_t> Args::intList(size_t i) const {
    std::vector<int64_t> out;
    for (const Value& v : values_.at(i).items()) out.push_back(v.toInt());
    return out;
}
std::optional<std::vector<int64_t>> Args::optIntList(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return intList(i);
}
std::vector<Tensor> Args::tensorList(size_t i) const {
    std::vector<Tensor> out;
    for (const Value& v : values_.at(i).items()) out.push_back(v.toTensor());
    return out;
}
std::optional<DType> Args::optDType(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return values_.at(i).toDType();
}
std::optional<Device> Args::optDevice(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return values_.at(i).toDevice();
}
std::optional<std::string> Args::optStr(size_t i) const {
    if (isNone(i)) return std::nullopt;
    return str(i);
}

const OpRegistry& OpRegistry::instance() {
    static const OpRegistry registry = [] {
        OpRegistry r;
        registerCreationOps(r);
        registerPointwiseOps(r);
        registerOperatorOps(r);
        registerReductionOps(r);
        registerShapeOps(r);
        registerTensorMethodOps(r);
        registerNnOps(r);
        registerComplexOps(r);
        registerRandomOps(r);
        registerCompositeOps(r);
        registerAutogradOps(r);
        // view_ops.def is the one list of view ops the compiler trusts: each must exist here.
        for (const ViewOp& op : viewOps()) {
            const std::string method = op.name == "getitem" ? "Tensor.__getitem__" : fmt::format("Tensor.{}", op.name);
            if (!r.contains(method) && !r.contains(fmt::format("torch.{}", op.name)))
                throw std::logic_error(fmt::format("view_ops.def names {}, which the eager runtime does not have", op.name));
        }
        return r;
    }();
    return registry;
}

void OpRegistry::def(const std::vector<std::string>& names, std::string_view schema, Kernel kernel, OutKernel intoOut) {
    const Schema parsed = parseSchema(schema);
    for (std::string_view name : names) {
        OpEntry& entry = entries_[std::string(name)];
        entry.name = std::string(name);
        entry.overloads.push_back({parsed, kernel, intoOut});
        // F.x and torch.nn.functional.x are one function.
        if (name.starts_with("F.")) {
            OpEntry& full = entries_["torch.nn.functional." + std::string(name.substr(2))];
            full.name = "torch.nn.functional." + std::string(name.substr(2));
            full.overloads.push_back({parsed, kernel, intoOut});
        }
    }
}

const OpEntry* OpRegistry::find(std::string_view qualifiedName) const {
    auto it = entries_.find(std::string(qualifiedName));
    return it == entries_.end() ? nullptr : &it->second;
}

Value OpRegistry::call(std::string_view qualifiedName, std::span<const Value> args, const KeywordArgs& kwargs) const {
    const OpEntry* entry = find(qualifiedName);
    if (!entry) fail(ErrorKind::Type, fmt::format("no operator named '{}'", qualifiedName));
    return call(*entry, args, kwargs);
}

namespace {

/// The `out=` tensor of a call to an op whose schemas name no `out` parameter; nullopt otherwise.
std::optional<Tensor> outArgument(const OpEntry& entry, const KeywordArgs& kwargs) {
    auto out = std::find_if(kwargs.begin(), kwargs.end(), [](const auto& kw) { return kw.first == "out"; });
    if (out == kwargs.end() || !out->second.isTensor()) return std::nullopt;
    for (const OpOverload& overload : entry.overloads)
        for (const Param& p : overload.schema.params)
            if (p.name == "out") return std::nullopt;
    return out->second.toTensor();
}

/// PyTorch's out= contract: the result is cast into `out` (which keeps its dtype and must be able to hold the
/// result's), resized first when its shape differs, and `out` itself is returned. Autograd does not record it: a
/// differentiable call (`refused`) raises here, after the op's own errors.
Value writeOut(const OpEntry& entry, const Tensor& out, const Value& result, bool refused) {
    const std::string& name = entry.overloads.front().schema.name;
    if (refused)
        fail(ErrorKind::Runtime, fmt::format("{}(): functions with out=... arguments don't support automatic differentiation, but one of "
                                             "the arguments requires grad.", name));
    if (!result.isTensor()) fail(ErrorKind::Type, fmt::format("{}() got an unexpected keyword argument 'out'", name));
    const Tensor& value = result.toTensor();
    if (!canCast(value.dtype(), out.dtype()))
        fail(ErrorKind::Runtime, fmt::format("result type {} can't be cast to the desired output type {}", dtypeKernelName(value.dtype()),
                                             dtypeKernelName(out.dtype())));
    if (value.device() != out.device())
        fail(ErrorKind::Runtime, fmt::format("Expected out tensor to have device {}, but got {} instead", value.device().str(), out.device().str()));
    if (out.sizes() != value.sizes()) {
        Tensor fresh = empty(value.sizes(), out.dtype(), out.device());
        out.impl()->storage = fresh.storage();
        Tensor(out).setGeometry(fresh.sizes(), fresh.strides(), 0);
    }
    copyInto(out, value);
    bumpVersion(out);
    return Value(out);
}

/// The first overload a call binds to, with its bound values (registration order); PyTorch's TypeError, naming
/// every overload when there are several, when none binds.
std::pair<const OpOverload*, std::vector<Value>> bindCall(const OpEntry& entry, std::span<const Value> args, const KeywordArgs& kwargs) {
    std::vector<std::string> reasons;
    for (const OpOverload& overload : entry.overloads) {
        std::string why;
        if (std::optional<std::vector<Value>> values = bind(overload.schema, args, kwargs, why)) return {&overload, std::move(*values)};
        reasons.push_back(std::move(why));
    }
    if (reasons.size() == 1) fail(ErrorKind::Type, reasons.front());
    std::vector<std::string> given;
    for (const Value& v : args) given.push_back(v.typeName());
    for (const auto& [name, v] : kwargs) given.push_back(fmt::format("{}={}", name, v.typeName()));
    std::string message = fmt::format("{}() received an invalid combination of arguments - got ({}), but expected one of:",
                                      entry.overloads.front().schema.name, fmt::join(given, ", "));
    for (const OpOverload& overload : entry.overloads) message += "\n * " + signatureOf(overload.schema);
    fail(ErrorKind::Type, message);
}

/// The bound call run through autograd's dispatch, with autocast's casts of its arguments first where they apply.
Value dispatchBound(const OpEntry& entry, const OpOverload& overload, std::vector<Value> values) {
    if (autocastActive() && applyAutocast(overload.schema, values)) {
        const AutocastSuspend inner;
        return autograd::dispatch(entry, overload, Args(std::move(values)));
    }
    return autograd::dispatch(entry, overload, Args(std::move(values)));
}

}  // namespace

Value OpRegistry::call(const OpEntry& entry, std::span<const Value> args, const KeywordArgs& kwargs) const {
    const std::optional<Tensor> out = outArgument(entry, kwargs);
    if (!out) {
        auto [overload, values] = bindCall(entry, args, kwargs);
        return dispatchBound(entry, *overload, std::move(values));
    }
    KeywordArgs rest;
    bool inputsRequireGrad = false;
    for (const auto& kw : kwargs)
        if (kw.first != "out") rest.push_back(kw);
    for (const Value& a : args) inputsRequireGrad = inputsRequireGrad || (a.isTensor() && a.toTensor().requiresGrad());
    for (const auto& kw : rest) inputsRequireGrad = inputsRequireGrad || (kw.second.isTensor() && kw.second.toTensor().requiresGrad());
    const bool refused = autograd::isGradEnabled() && (inputsRequireGrad || out->requiresGrad());
    Value result;
    {
        const autograd::GradModeGuard noRecording(false);
        auto [overload, values] = bindCall(entry, args, rest);
        // The overload's OutKernel writes `out` itself when `out` takes the result as it is: no fresh result, no copy.
        // A refused call raises in writeOut after the op's own errors; autocast changes the arguments first, so both
        // keep the fresh result and its copy.
        if (!refused && !autocastActive() && overload->intoOut) {
            const Args bound(std::move(values));
            if (overload->intoOut(bound, *out)) {
                bumpVersion(*out);
                return Value(*out);
            }
            result = autograd::dispatch(entry, *overload, bound);
        } else {
            result = dispatchBound(entry, *overload, std::move(values));
        }
    }
    return writeOut(entry, *out, result, refused);
}

std::vector<std::string> OpRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
}

bool OpRegistry::isTensorProperty(std::string_view name) {
    static constexpr std::string_view kProperties[] = {"shape", "dtype", "device", "ndim", "T", "mT", "H", "mH",
                                                       "requires_grad", "is_cuda", "is_cpu", "data", "is_leaf",
                                                       "grad", "itemsize", "nbytes", "layout", "grad_fn",
                                                       "retains_grad", "real", "imag"};
    return std::find(std::begin(kProperties), std::end(kProperties), name) != std::end(kProperties);
}

}  // namespace eng::tensor
