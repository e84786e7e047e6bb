// Reading a graph node's arguments as Python binds them (keyword or position), as the lowering's values:
// tensors, constant numbers and ints, dim lists, dtypes and strings; whether a node reads or makes a complex tensor.
#include <functional>

#include <fmt/format.h>

#include "inductor/lowering_context.h"

namespace eng::inductor::lowering {

const fx::Arg* findArg(const fx::Node& node, size_t position, const std::string& name) {
    for (const auto& [key, arg] : node.kwargs)
        if (key == name) return &arg;
    if (position < node.args.size()) return &node.args[position];
    return nullptr;
}

const fx::Arg* NodeArgs::find(size_t position, const std::string& name) const { return findArg(node_, position, name); }

bool NodeArgs::has(size_t position, const std::string& name) const {
    const fx::Arg* arg = find(position, name);
    return arg && !(arg->kind == fx::Arg::Kind::Constant && arg->constant.isNone());
}

LValue NodeArgs::get(size_t position, const std::string& name) const {
    const fx::Arg* arg = find(position, name);
    if (!arg) throw LoweringError(fmt::format("{}: missing argument '{}'", node_.name, name));
    return lowering_.valueOf(*arg);
}

LValue NodeArgs::tensor(size_t position, const std::string& name) const {
    LValue v = get(position, name);
    if (!v.isTensor()) throw LoweringError(fmt::format("{}: argument '{}' is not a tensor", node_.name, name));
    return v;
}

double NodeArgs::number(size_t position, const std::string& name, std::optional<double> fallback) const {
    if (!has(position, name)) {
        if (fallback) return *fallback;
        throw LoweringError(fmt::format("{}: missing argument '{}'", node_.name, name));
    }
    LValue v = get(position, name);
    if (v.kind != LValue::Kind::Number || !v.number.isNumber())
        throw LoweringError(fmt::format("{}: argument '{}' is not a constant number", node_.name, name));
    return v.number.asFloat();
}

int64_t NodeArgs::integer(size_t position, const std::string& name, std::optional<int64_t> fallback) const {
    if (!has(position, name)) {
        if (fallback) return *fallback;
        throw LoweringError(fmt::format("{}: missing argument '{}'", node_.name, name));
    }
    LValue v = get(position, name);
    if (v.kind != LValue::Kind::Number || !(v.number.is(vm::Kind::Int) || v.number.is(vm::Kind::Bool)))
        throw LoweringError(fmt::format("{}: argument '{}' is not a constant int", node_.name, name));
    return v.number.asInt();
}

bool NodeArgs::flag(size_t position, const std::string& name, bool fallback) const {
    if (!has(position, name)) return fallback;
    return integer(position, name) != 0;
}

std::optional<std::vector<int64_t>> NodeArgs::dims(size_t position, const std::string& name) const {
    if (!has(position, name)) return std::nullopt;
    LValue v = get(position, name);
    std::vector<int64_t> dims;
    if (v.kind == LValue::Kind::Number && v.number.is(vm::Kind::Int)) dims.push_back(v.number.asInt());
    else if (v.kind == LValue::Kind::List)
        for (const LValue& item : v.items) {
            if (item.kind != LValue::Kind::Number || !item.number.is(vm::Kind::Int)) throw LoweringError(node_.name + ": dims must be constant ints");
            dims.push_back(item.number.asInt());
        }
    else throw LoweringError(node_.name + ": dims must be constant ints");
    return dims;
}

std::optional<DType> NodeArgs::dtype(size_t position, const std::string& name) const {
    const fx::Arg* arg = find(position, name);
    if (!arg || arg->kind != fx::Arg::Kind::Constant || !arg->constant.is(vm::Kind::DType)) return std::nullopt;
    return arg->constant.as<vm::DTypeObject>().value;
}

std::string NodeArgs::text(size_t position, const std::string& name, const std::string& fallback) const {
    const fx::Arg* arg = find(position, name);
    if (!arg || arg->kind != fx::Arg::Kind::Constant || !arg->constant.is(vm::Kind::Str)) return fallback;
    return arg->constant.as<vm::StrObject>().value;
}

bool Lowering::touchesComplex(const fx::Node& node) const {
    if (node.example.is(vm::Kind::Tensor) && tensor::isComplex(node.example.as<vm::TensorObject>().value.dtype())) return true;
    std::function<bool(const fx::Arg&)> complexArg = [&](const fx::Arg& arg) {
        if (arg.kind == fx::Arg::Kind::NodeRef) {
            auto v = values_.find(arg.node);
            if (v != values_.end() && v->second.isTensor() && tensor::isComplex(v->second.dtype)) return true;
        }
        for (const fx::Arg& item : arg.items)
            if (complexArg(item)) return true;
        return false;
    };
    for (const fx::Arg& arg : node.args)
        if (complexArg(arg)) return true;
    for (const auto& kw : node.kwargs)
        if (complexArg(kw.second)) return true;
    return false;
}

}  // namespace eng::inductor::lowering
