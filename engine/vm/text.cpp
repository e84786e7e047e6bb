// str(), repr() and format() of VM values as Python prints them, including the format-spec mini-language
// that f-strings use ({x:.4f}, {n:>5}, {v:,}, {r:.2%}, {x:e}).
#include <fmt/core.h>

#include <cmath>

#include "frontend/code_object.h"
#include "python/python_repr.h"
#include "tensor/printing.h"
#include "tensor/registry.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

std::string joinRepr(Interpreter& vm, const ValueList& items) {
    std::string text;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) text += ", ";
        text += vm.repr(items[i]);
    }
    return text;
}

std::string address(const Value& v) { return fmt::format("0x{:x}", reinterpret_cast<uintptr_t>(v.object().get())); }

struct FormatSpec {
    char fill = ' ';
    char align = 0;
    char sign = '-';
    bool alternate = false;
    bool zeroPad = false;
    int width = 0;
    char grouping = 0;
    int precision = -1;
    char type = 0;
};

FormatSpec parseSpec(const std::string& spec) {
    FormatSpec s;
    size_t i = 0;
    auto isAlign = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
    if (spec.size() >= 2 && isAlign(spec[1])) {
        s.fill = spec[0];
        s.align = spec[1];
        i = 2;
    } else if (!spec.empty() && isAlign(spec[0])) {
        s.align = spec[0];
        i = 1;
    }
    if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) s.sign = spec[i++];
    if (i < spec.size() && spec[i] == '#') s.alternate = (++i, true);
    if (i < spec.size() && spec[i] == '0') s.zeroPad = (++i, true);
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) s.width = s.width * 10 + (spec[i++] - '0');
    if (i < spec.size() && (spec[i] == ',' || spec[i] == '_')) s.grouping = spec[i++];
    if (i < spec.size() && spec[i] == '.') {
        ++i;
        s.precision = 0;
        while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) s.precision = s.precision * 10 + (spec[i++] - '0');
    }
    if (i < spec.size()) s.type = spec[i++];
    if (i != spec.size()) raise("ValueError", "Invalid format specifier '" + spec + "'");
    return s;
}

std::string group(const std::string& digits, char separator) {
    std::string out;
    int count = 0;
    for (size_t i = digits.size(); i-- > 0;) {
        if (count == 3) {
            out.insert(out.begin(), separator);
            count = 0;
        }
        out.insert(out.begin(), digits[i]);
        ++count;
    }
    return out;
}

std::string pad(std::string body, const FormatSpec& s, bool numeric) {
    std::string sign;
    if (numeric && !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' ')) {
        sign = body.substr(0, 1);
        body = body.substr(1);
    }
    size_t length = sign.size() + body.size();
    if (static_cast<int>(length) >= s.width) return sign + body;
    size_t missing = static_cast<size_t>(s.width) - length;
    char align = s.align ? s.align : (s.zeroPad && numeric ? '=' : (numeric ? '>' : '<'));
    char fill = s.zeroPad && !s.align ? '0' : s.fill;
    switch (align) {
        case '<': return sign + body + std::string(missing, fill);
        case '^': return std::string(missing / 2, fill) + sign + body + std::string(missing - missing / 2, fill);
        case '=': return sign + std::string(missing, fill) + body;
        default: return std::string(missing, fill) + sign + body;
    }
}

std::string formatFloat(double x, const FormatSpec& s) {
    std::string body;
    int precision = s.precision < 0 ? 6 : s.precision;
    if (std::isnan(x)) {
        body = "nan";
    } else if (std::isinf(x)) {
        body = x < 0 ? "-inf" : "inf";
    } else {
        switch (s.type) {
            case 'f':
            case 'F': body = fmt::format("{:.{}f}", x, precision); break;
            case 'e':
            case 'E': body = fmt::format("{:.{}e}", x, precision); break;
            case '%': body = fmt::format("{:.{}f}%", x * 100.0, precision); break;
            case 'g':
            case 'G': body = fmt::format("{:.{}g}", x, precision == 0 ? 1 : precision); break;
            default:
                body = s.precision < 0 ? python::floatRepr(x) : fmt::format("{:.{}g}", x, precision == 0 ? 1 : precision);
        }
    }
    if (s.grouping) {
        size_t start = body[0] == '-' ? 1 : 0;
        size_t end = body.find_first_of(".e%", start);
        if (end == std::string::npos) end = body.size();
        body = body.substr(0, start) + group(body.substr(start, end - start), s.grouping) + body.substr(end);
    }
    if (s.sign != '-' && !body.empty() && body[0] != '-') body.insert(body.begin(), s.sign);
    return pad(body, s, true);
}

}  // namespace

std::string Interpreter::str(const Value& v) {
    switch (v.kind()) {
        case Kind::Str: return v.str();
        case Kind::Tensor: return tensor::repr(v.tensor());
        case Kind::Device: return v.as<DeviceObject>().value.str();
        case Kind::Instance: {
            auto& instance = v.as<InstanceObject>();
            if (auto method = instance.cls->lookup("__str__")) return call(*method, {v}).str();
            if (instance.cls->isSubclassOf(*builtinClass("BaseException"))) {
                auto args = instance.attributes.find("args");
                if (args == instance.attributes.end()) return "";
                const ValueList& items = args->second.as<TupleObject>().items;
                if (items.empty()) return "";
                // KeyError shows its key as repr: str(KeyError('k')) is "'k'".
                if (items.size() == 1 && instance.cls->isSubclassOf(*builtinClass("KeyError"))) return repr(items[0]);
                if (items.size() == 1) return str(items[0]);
                return repr(args->second);
            }
            return repr(v);
        }
        default: return repr(v);
    }
}

std::string Interpreter::repr(const Value& v) {
    switch (v.kind()) {
        case Kind::Null:
        case Kind::None: return "None";
        case Kind::Bool: return v.asBool() ? "True" : "False";
        case Kind::Int: return std::to_string(v.asInt());
        case Kind::Float: return python::floatRepr(v.asFloat());
        case Kind::Str: return python::stringRepr(v.str());
        case Kind::Tensor: return tensor::repr(v.tensor());
        case Kind::DType:
        case Kind::Device: return toTensorValue(v).repr();
        case Kind::List: return "[" + joinRepr(*this, v.as<ListObject>().items) + "]";
        case Kind::Tuple: {
            auto& tuple = v.as<TupleObject>();
            if (tuple.cls)
                if (auto method = tuple.cls->lookup("__repr__")) return str(call(*method, {v}));
            if (tuple.typeName != "tuple") return toTensorValue(v).repr();
            return "(" + joinRepr(*this, tuple.items) + (tuple.items.size() == 1 ? ",)" : ")");
        }
        case Kind::Dict: {
            if (const auto& cls = v.as<DictObject>().cls)
                if (auto method = cls->lookup("__repr__")) return str(call(*method, {v}));
            std::string text = "{";
            bool first = true;
            for (auto& [key, value] : v.as<DictObject>().entries()) {
                if (!first) text += ", ";
                first = false;
                text += repr(key) + ": " + repr(value);
            }
            return text + "}";
        }
        case Kind::Set: {
            const auto& set = v.as<SetObject>();
            if (set.items.empty()) return set.frozen ? "frozenset()" : "set()";
            std::string items = "{" + joinRepr(*this, set.items) + "}";
            return set.frozen ? "frozenset(" + items + ")" : items;
        }
        case Kind::Slice: {
            auto& s = v.as<SliceObject>();
            return fmt::format("slice({}, {}, {})", repr(s.start), repr(s.stop), repr(s.step));
        }
        case Kind::Ellipsis: return "Ellipsis";
        case Kind::Function: return fmt::format("<function {} at {}>", v.as<FunctionObject>().code->qualifiedName, address(v));
        case Kind::BoundMethod: return fmt::format("<bound method of {}>", repr(v.as<BoundMethodObject>().self));
        case Kind::Native: return fmt::format("<built-in function {}>", v.as<NativeObject>().name);
        case Kind::Class: {
            auto& cls = v.as<ClassObject>();
            return cls.module == "builtins" ? fmt::format("<class '{}'>", cls.name) : fmt::format("<class '{}.{}'>", cls.module, cls.name);
        }
        case Kind::Module: return fmt::format("<module '{}'>", v.as<ModuleObject>().name);
        case Kind::Instance: {
            auto& instance = v.as<InstanceObject>();
            if (auto method = instance.cls->lookup("__repr__")) return call(*method, {v}).str();
            if (instance.cls->isSubclassOf(*builtinClass("BaseException"))) {
                auto args = instance.attributes.find("args");
                const ValueList empty;
                const ValueList& items = args == instance.attributes.end() ? empty : args->second.as<TupleObject>().items;
                return instance.cls->name + "(" + joinRepr(*this, items) + ")";
            }
            return fmt::format("<{}.{} object at {}>", instance.cls->module, instance.cls->name, address(v));
        }
        default: return fmt::format("<{} object at {}>", classOf(v)->name, address(v));
    }
}

std::string Interpreter::percentFormat(const std::string& pattern, const Value& arguments) {
    ValueList items = arguments.is(Kind::Tuple) ? arguments.as<TupleObject>().items : ValueList{arguments};
    size_t next = 0;
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%') {
            out += pattern[i];
            continue;
        }
        size_t end = pattern.find_first_of("sdirfeEgGx%", i + 1);
        if (end == std::string::npos) raise("ValueError", "incomplete format");
        char conversion = pattern[end];
        std::string flags = pattern.substr(i + 1, end - i - 1);
        i = end;
        if (conversion == '%') {
            out += '%';
            continue;
        }
        if (next >= items.size()) typeError("not enough arguments for format string");
        const Value& item = items[next++];
        if (conversion == 's') {
            out += format(makeStr(str(item)), flags);
        } else if (conversion == 'r') {
            out += format(makeStr(repr(item)), flags);
        } else {
            Value number = conversion == 'd' || conversion == 'i' ? Value(static_cast<int64_t>(std::trunc(item.asFloat()))) : item;
            if (conversion == 'd' || conversion == 'i') {
                if (!item.isNumber()) typeError(fmt::format("%{} format: a real number is required, not {}", conversion, classOf(item)->name));
                out += format(number, flags + "d");
            } else {
                if (!item.isNumber()) typeError(fmt::format("must be real number, not {}", classOf(item)->name));
                out += format(Value(item.asFloat()), flags + conversion);
            }
        }
    }
    if (next < items.size()) typeError("not all arguments converted during string formatting");
    return out;
}

std::string Interpreter::format(const Value& v, const std::string& spec) {
    if (spec.empty()) return str(v);
    if (v.is(Kind::Tensor)) {
        if (v.tensor().dim() != 0) typeError("unsupported format string passed to Tensor.__format__");
        return format(callOp("Tensor.item", {v}), spec);
    }
    FormatSpec s = parseSpec(spec);
    if (v.is(Kind::Float) || (v.isNumber() && s.type && std::string("eEfFgG%").find(s.type) != std::string::npos))
        return formatFloat(v.asFloat(), s);
    if (v.is(Kind::Int) || v.is(Kind::Bool)) {
        if (s.type == 's') raise("ValueError", "Unknown format code 's' for object of type 'int'");
        int64_t n = v.asInt();
        std::string digits = s.type == 'x' ? fmt::format("{:x}", std::llabs(n))
                             : s.type == 'b' ? fmt::format("{:b}", std::llabs(n))
                                             : std::to_string(std::llabs(n));
        if (s.grouping) digits = group(digits, s.grouping);
        std::string sign = n < 0 ? "-" : (s.sign == '-' ? "" : std::string(1, s.sign));
        return pad(sign + digits, s, true);
    }
    if (v.is(Kind::Str)) {
        std::string text = v.str();
        if (s.precision >= 0 && static_cast<size_t>(s.precision) < text.size()) text.resize(static_cast<size_t>(s.precision));
        return pad(text, s, false);
    }
    return pad(str(v), s, false);
}

}  // namespace eng::vm
