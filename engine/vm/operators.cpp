// Python's operators on VM values: arithmetic with int/float/str/list/tuple semantics, comparisons, `in`,
// subscripts, truthiness, iteration and lengths. Tensors go to the registry's dunder ops.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ops/operators.h"
#include "tensor/registry.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

using ops::BinaryOperator;
using ops::CompareOperator;

int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t floorMod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

/// Python ints are unbounded; cwb's are 64-bit, so leaving that range is an error rather than a wrap.
[[noreturn]] void overflow() { raise("OverflowError", "integer result does not fit in 64 bits (cwb ints are 64-bit)"); }

int64_t checkedAdd(int64_t x, int64_t y) {
    int64_t r = 0;
    if (__builtin_add_overflow(x, y, &r)) overflow();
    return r;
}
int64_t checkedSub(int64_t x, int64_t y) {
    int64_t r = 0;
    if (__builtin_sub_overflow(x, y, &r)) overflow();
    return r;
}
int64_t checkedMul(int64_t x, int64_t y) {
    int64_t r = 0;
    if (__builtin_mul_overflow(x, y, &r)) overflow();
    return r;
}

std::optional<Value> numberOp(BinaryOperator op, const Value& a, const Value& b) {
    bool floats = a.is(Kind::Float) || b.is(Kind::Float);
    if (!floats) {
        int64_t x = a.asInt();
        int64_t y = b.asInt();
        bool bools = a.is(Kind::Bool) && b.is(Kind::Bool);
        switch (op) {
            case BinaryOperator::Add: return Value(checkedAdd(x, y));
            case BinaryOperator::BitAnd: return bools ? Value(static_cast<bool>(x & y)) : Value(x & y);
            case BinaryOperator::FloorDivide:
                if (y == 0) raise("ZeroDivisionError", "integer division or modulo by zero");
                return Value(floorDiv(x, y));
            case BinaryOperator::LeftShift:
                if (y < 0) raise("ValueError", "negative shift count");
                if (x == 0) return Value(int64_t{0});
                if (y >= 63 || x > (INT64_MAX >> y) || x < (INT64_MIN >> y)) overflow();
                return Value(x * (int64_t{1} << y));
            case BinaryOperator::Multiply: return Value(checkedMul(x, y));
            case BinaryOperator::Remainder:
                if (y == 0) raise("ZeroDivisionError", "integer modulo by zero");
                return Value(floorMod(x, y));
            case BinaryOperator::BitOr: return bools ? Value(static_cast<bool>(x | y)) : Value(x | y);
            case BinaryOperator::Power: {
                if (y < 0) return Value(std::pow(static_cast<double>(x), static_cast<double>(y)));
                int64_t result = 1;
                // Square-and-multiply: huge exponents of 0, 1 and -1 stay cheap.
                for (int64_t base = x, e = y; e > 0; e >>= 1) {
                    if (e & 1) result = checkedMul(result, base);
                    if (e > 1) base = checkedMul(base, base);
                }
                return Value(result);
            }
            case BinaryOperator::RightShift:
                if (y < 0) raise("ValueError", "negative shift count");
                return Value(y >= 63 ? (x < 0 ? int64_t{-1} : int64_t{0}) : x >> y);
            case BinaryOperator::Subtract: return Value(checkedSub(x, y));
            case BinaryOperator::TrueDivide:
                if (y == 0) raise("ZeroDivisionError", "division by zero");
                return Value(static_cast<double>(x) / static_cast<double>(y));
            case BinaryOperator::BitXor: return bools ? Value(static_cast<bool>(x ^ y)) : Value(x ^ y);
            default: return std::nullopt;
        }
    }
    double x = a.asFloat();
    double y = b.asFloat();
    switch (op) {
        case BinaryOperator::Add: return Value(x + y);
        case BinaryOperator::FloorDivide:
            if (y == 0) raise("ZeroDivisionError", "float floor division by zero");
            return Value(std::floor(x / y));
        case BinaryOperator::Multiply: return Value(x * y);
        case BinaryOperator::Remainder: {
            if (y == 0) raise("ZeroDivisionError", "float modulo by zero");
            double r = std::fmod(x, y);
            if (r != 0 && ((r < 0) != (y < 0))) r += y;
            return Value(r);
        }
        case BinaryOperator::Power: return Value(std::pow(x, y));
        case BinaryOperator::Subtract: return Value(x - y);
        case BinaryOperator::TrueDivide:
            if (y == 0) raise("ZeroDivisionError", "float division by zero");
            return Value(x / y);
        default: return std::nullopt;
    }
}

ValueList repeat(const ValueList& items, int64_t times) {
    ValueList out;
    for (int64_t i = 0; i < times; ++i) out.insert(out.end(), items.begin(), items.end());
    return out;
}

int64_t normalizeIndex(int64_t index, size_t size, const char* what) {
    int64_t n = static_cast<int64_t>(size);
    if (index < 0) index += n;
    if (index < 0 || index >= n) raise("IndexError", fmt::format("{} index out of range", what));
    return index;
}

/// Python's slice.indices(): the positions a slice selects from a sequence of `size`.
std::vector<size_t> slicePositions(const SliceObject& slice, size_t size) {
    auto n = static_cast<int64_t>(size);
    int64_t step = slice.step.isNone() ? 1 : slice.step.asInt();
    if (step == 0) raise("ValueError", "slice step cannot be zero");
    auto clamp = [&](const Value& bound, int64_t fallback) {
        if (bound.isNone()) return fallback;
        int64_t i = bound.asInt();
        if (i < 0) i += n;
        if (step > 0) return std::clamp<int64_t>(i, 0, n);
        return std::clamp<int64_t>(i, -1, n - 1);
    };
    int64_t start = clamp(slice.start, step > 0 ? 0 : n - 1);
    int64_t stop = clamp(slice.stop, step > 0 ? n : -1);
    std::vector<size_t> positions;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) positions.push_back(static_cast<size_t>(i));
    return positions;
}

/// `items[slice] = replacement`: a plain slice (step 1) takes any length, an extended one exactly its own.
void assignListSlice(Interpreter&, ValueList& items, const SliceObject& slice, ValueList replacement) {
    const int64_t step = slice.step.isNone() ? 1 : slice.step.asInt();
    if (step == 1) {
        const auto n = static_cast<int64_t>(items.size());
        auto bound = [&](const Value& b, int64_t fallback) {
            if (b.isNone()) return fallback;
            int64_t i = b.asInt();
            if (i < 0) i += n;
            return std::clamp<int64_t>(i, 0, n);
        };
        const int64_t start = bound(slice.start, 0);
        const int64_t stop = std::max(start, bound(slice.stop, n));
        items.erase(items.begin() + start, items.begin() + stop);
        items.insert(items.begin() + start, replacement.begin(), replacement.end());
        return;
    }
    std::vector<size_t> positions = slicePositions(slice, items.size());
    if (positions.size() != replacement.size())
        raise("ValueError", fmt::format("attempt to assign sequence of size {} to extended slice of size {}", replacement.size(),
                                        positions.size()));
    for (size_t k = 0; k < positions.size(); ++k) items[positions[k]] = replacement[k];
}

int64_t indexValue(const Value& key, const char* what) {
    if (key.is(Kind::Int) || key.is(Kind::Bool)) return key.asInt();
    if (key.is(Kind::Tensor)) return tensor::Value(key.tensor()).toInt();
    typeError(fmt::format("{} indices must be integers or slices, not {}", what,
                          key.is(Kind::Str) ? "str" : key.is(Kind::Float) ? "float" : "object"));
}

}  // namespace

Value Interpreter::binaryOp(uint32_t op, const Value& a, const Value& b) {
    const auto operand = ops::decodeBinaryOpArg(op);
    if (!operand) typeError(fmt::format("bad BINARY_OP operand {}", op));
    const bool inplace = operand->inplace;
    const BinaryOperator base = operand->op;
    const std::string_view name = ops::info(base).dunder;
    if (a.is(Kind::Tensor)) {
        std::string method = fmt::format("Tensor.__{}{}__", inplace ? "i" : "", name);
        if (inplace && !tensor::OpRegistry::instance().contains(method)) method = fmt::format("Tensor.__{}__", name);
        return callOp(method, {a, b});
    }
    if (b.is(Kind::Tensor) && a.isNumber()) return callOp(fmt::format("Tensor.__r{}__", name), {b, a});
    if (a.isNumber() && b.isNumber()) {
        if (auto result = numberOp(base, a, b)) return *result;
    }
    // A collections dict subclass (Counter) defines its operators in Python, as a user class does.
    auto classedDict = [](const Value& v) { return v.is(Kind::Dict) && v.as<DictObject>().cls != nullptr; };
    if (a.is(Kind::Instance) || b.is(Kind::Instance) || classedDict(a) || classedDict(b)) {
        // `a += b` tries a.__iadd__(b) before a.__add__(b), then b.__radd__(a); NotImplemented hands over to the next.
        auto attempt = [&](const Value& self, const std::string& method, const Value& other) -> std::optional<Value> {
            if (!self.is(Kind::Instance) && !classedDict(self)) return std::nullopt;
            std::optional<Value> bound = findAttr(self, method);
            if (!bound) return std::nullopt;
            Value result = call(*bound, {other});
            if (result.identical(notImplemented())) return std::nullopt;
            return result;
        };
        if (inplace)
            if (auto r = attempt(a, fmt::format("__i{}__", name), b)) return *r;
        if (auto r = attempt(a, fmt::format("__{}__", name), b)) return *r;
        if (auto r = attempt(b, fmt::format("__r{}__", name), a)) return *r;
    }
    if (base == BinaryOperator::Add) {
        if (a.is(Kind::Str) && b.is(Kind::Str)) return makeStr(a.str() + b.str());
        if (a.is(Kind::List) && b.is(Kind::List)) {
            if (inplace) {
                auto& items = a.as<ListObject>().items;
                ValueList extra = b.as<ListObject>().items;
                items.insert(items.end(), extra.begin(), extra.end());
                return a;
            }
            ValueList items = a.as<ListObject>().items;
            items.insert(items.end(), b.as<ListObject>().items.begin(), b.as<ListObject>().items.end());
            return makeList(std::move(items));
        }
        if (a.is(Kind::List) && inplace) {
            auto& items = a.as<ListObject>().items;
            ValueList extra = toList(b);
            items.insert(items.end(), extra.begin(), extra.end());
            return a;
        }
        if (a.is(Kind::Tuple) && b.is(Kind::Tuple)) {
            ValueList items = a.as<TupleObject>().items;
            items.insert(items.end(), b.as<TupleObject>().items.begin(), b.as<TupleObject>().items.end());
            return makeTuple(std::move(items));
        }
    }
    if (base == BinaryOperator::Multiply) {
        const Value& sequence = a.is(Kind::Int) ? b : a;
        const Value& count = a.is(Kind::Int) ? a : b;
        if (count.is(Kind::Int)) {
            int64_t times = std::max<int64_t>(0, count.asInt());
            if (sequence.is(Kind::Str)) {
                std::string out;
                for (int64_t i = 0; i < times; ++i) out += sequence.str();
                return makeStr(std::move(out));
            }
            if (sequence.is(Kind::List)) return makeList(repeat(sequence.as<ListObject>().items, times));
            if (sequence.is(Kind::Tuple)) return makeTuple(repeat(sequence.as<TupleObject>().items, times));
        }
    }
    if (base == BinaryOperator::Remainder && a.is(Kind::Str)) return makeStr(percentFormat(a.str(), b));
    if (base == BinaryOperator::BitOr && a.is(Kind::Dict) && b.is(Kind::Dict)) {
        // PEP 584: `a | b` is a copy of a updated with b (a's class kept); `a |= b` updates a.
        auto merged = inplace ? std::static_pointer_cast<DictObject>(a.object()) : std::make_shared<DictObject>(a.as<DictObject>());
        for (const auto& [key, value] : b.as<DictObject>().entries()) merged->set(key, value);
        return inplace ? a : Value(merged);
    }
    if (std::optional<Value> set = setOperator(base, inplace, a, b)) return *set;
    typeError(fmt::format("unsupported operand type(s) for {}: '{}' and '{}'", ops::binaryOpArgSymbol(op),
                          classOf(a)->name, classOf(b)->name));
}

namespace {

/// -1, 0, 1 for orderable pairs; nullopt when Python would raise.
std::optional<int> order(Interpreter& vm, const Value& a, const Value& b) {
    if (a.isNumber() && b.isNumber()) {
        double x = a.asFloat();
        double y = b.asFloat();
        if (!a.is(Kind::Float) && !b.is(Kind::Float)) return a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
        return x < y ? -1 : x > y ? 1 : 0;
    }
    if (a.is(Kind::Str) && b.is(Kind::Str)) return a.str() < b.str() ? -1 : a.str() > b.str() ? 1 : 0;
    bool sequences = (a.is(Kind::List) && b.is(Kind::List)) || (a.is(Kind::Tuple) && b.is(Kind::Tuple));
    if (!sequences) return std::nullopt;
    const ValueList& x = a.is(Kind::List) ? a.as<ListObject>().items : a.as<TupleObject>().items;
    const ValueList& y = b.is(Kind::List) ? b.as<ListObject>().items : b.as<TupleObject>().items;
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (valuesEqual(x[i], y[i])) continue;
        return order(vm, x[i], y[i]);
    }
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

}  // namespace

Value Interpreter::compare(uint32_t op, const Value& a, const Value& b) {
    if (op >= ops::kCompareOpArgCount) typeError(fmt::format("bad COMPARE_OP operand {}", op));
    const auto comparison = static_cast<CompareOperator>(op);
    const ops::CompareOperatorInfo& info = ops::info(comparison);
    if (a.is(Kind::Tensor)) return callOp(fmt::format("Tensor.__{}__", info.function), {a, b});
    if (b.is(Kind::Tensor)) return callOp(fmt::format("Tensor.__{}__", ops::info(info.reflected).function), {b, a});
    // A class's own __eq__ / __ne__ (user classes, dict views) decides, with NotImplemented's fallbacks.
    if (comparison == CompareOperator::Equal || comparison == CompareOperator::NotEqual)
        return equality(a, b, comparison == CompareOperator::NotEqual);
    // A user class's ordering dunder (a < b: a.__lt__(b), then b.__gt__(a)); NotImplemented hands over.
    for (const auto& [self, other, function] : {std::tuple{&a, &b, info.function}, std::tuple{&b, &a, ops::info(info.reflected).function}}) {
        if (!self->is(Kind::Instance)) continue;
        if (std::optional<Value> dunder = self->as<InstanceObject>().cls->lookup(fmt::format("__{}__", function))) {
            Value result = call(*dunder, {*self, *other});
            if (!result.identical(notImplemented())) return result;
        }
    }
    if (a.is(Kind::Set) && b.is(Kind::Set)) {
        // Set ordering is inclusion: a <= b is issubset, a < b a proper subset (sizes differ), > and >= mirrored.
        const bool forward = comparison == CompareOperator::Less || comparison == CompareOperator::LessEqual;
        const SetObject& small = (forward ? a : b).as<SetObject>();
        const SetObject& large = (forward ? b : a).as<SetObject>();
        bool subset = small.items.size() <= large.items.size();
        for (size_t i = 0; subset && i < small.items.size(); ++i) subset = large.contains(small.items[i]);
        const bool strict = comparison == CompareOperator::Less || comparison == CompareOperator::Greater;
        return Value(subset && (!strict || small.items.size() < large.items.size()));
    }
    std::optional<int> sign = order(*this, a, b);
    if (!sign)
        typeError(fmt::format("'{}' not supported between instances of '{}' and '{}'", info.symbol,
                              classOf(a)->name, classOf(b)->name));
    switch (comparison) {
        case CompareOperator::Less: return Value(*sign < 0);
        case CompareOperator::LessEqual: return Value(*sign <= 0);
        case CompareOperator::Greater: return Value(*sign > 0);
        default: return Value(*sign >= 0);
    }
}

bool Interpreter::contains(const Value& container, const Value& item) {
    switch (container.kind()) {
        case Kind::Str:
            if (!item.is(Kind::Str)) typeError("'in <string>' requires string as left operand");
            return container.str().find(item.str()) != std::string::npos;
        case Kind::Dict: return container.as<DictObject>().find(item) != nullptr;
        case Kind::Set: return container.as<SetObject>().contains(item);
        case Kind::Tensor: return truthy(callOp("Tensor.__contains__", {container, item}));
        case Kind::Class:
            if (auto method = metaclassMethod(container, "__contains__")) return truthy(call(*method, {item}));
            typeError(fmt::format("argument of type '{}' is not iterable", classOf(container)->name));
        case Kind::List:
        case Kind::Tuple: {
            const ValueList& items = container.is(Kind::List) ? container.as<ListObject>().items : container.as<TupleObject>().items;
            return std::any_of(items.begin(), items.end(), [&](const Value& v) { return valuesEqual(v, item); });
        }
        default: {
            ValueList items = toList(container);
            return std::any_of(items.begin(), items.end(), [&](const Value& v) { return valuesEqual(v, item); });
        }
    }
}

Value Interpreter::getItem(const Value& container, const Value& key) {
    switch (container.kind()) {
        case Kind::List:
        case Kind::Tuple: {
            bool list = container.is(Kind::List);
            const ValueList& items = list ? container.as<ListObject>().items : container.as<TupleObject>().items;
            if (key.is(Kind::Slice)) {
                ValueList picked;
                for (size_t i : slicePositions(key.as<SliceObject>(), items.size())) picked.push_back(items[i]);
                return list ? makeList(std::move(picked)) : makeTuple(std::move(picked));
            }
            return items[static_cast<size_t>(normalizeIndex(indexValue(key, list ? "list" : "tuple"), items.size(),
                                                            list ? "list" : "tuple"))];
        }
        case Kind::Str: {
            const std::string& text = container.str();
            if (key.is(Kind::Slice)) {
                std::string picked;
                for (size_t i : slicePositions(key.as<SliceObject>(), text.size())) picked += text[i];
                return makeStr(std::move(picked));
            }
            return makeStr(std::string(1, text[static_cast<size_t>(normalizeIndex(indexValue(key, "string"), text.size(), "string"))]));
        }
        case Kind::Dict: {
            if (Value* found = container.as<DictObject>().find(key)) return *found;
            // dict subclasses answer a missing key with __missing__ (defaultdict, Counter), as dict.__getitem__ does.
            if (const auto& cls = container.as<DictObject>().cls)
                if (auto missing = cls->lookup("__missing__")) return call(*missing, {container, key});
            raiseKeyError(key);
        }
        case Kind::Tensor: return callOp("Tensor.__getitem__", {container, key});
        case Kind::Instance:
            if (auto method = findAttr(container, "__getitem__")) return call(*method, {key});
            break;
        case Kind::Class:
            if (auto method = metaclassMethod(container, "__getitem__")) return call(*method, {key});
            // C[item] calls the class's __class_getitem__ (a classmethod); builtin generics (list[int]) stand for the
            // class itself in the subset, whose annotations are never evaluated for their alias.
            if (container.as<ClassObject>().lookup("__class_getitem__"))
                return call(getAttr(container, "__class_getitem__"), {key});
            return container;
        default: break;
    }
    typeError(fmt::format("'{}' object is not subscriptable", classOf(container)->name));
}

void Interpreter::setItem(const Value& container, const Value& key, Value value) {
    switch (container.kind()) {
        case Kind::List: {
            auto& items = container.as<ListObject>().items;
            if (key.is(Kind::Slice)) {
                assignListSlice(*this, items, key.as<SliceObject>(), toList(value));
                return;
            }
            items[static_cast<size_t>(normalizeIndex(indexValue(key, "list"), items.size(), "list assignment"))] = std::move(value);
            return;
        }
        case Kind::Dict: container.as<DictObject>().set(key, std::move(value)); return;
        case Kind::Tensor: callOp("Tensor.__setitem__", {container, key, value}); return;
        case Kind::Instance:
            if (auto method = findAttr(container, "__setitem__")) {
                call(*method, {key, std::move(value)});
                return;
            }
            break;
        default: break;
    }
    typeError(fmt::format("'{}' object does not support item assignment", classOf(container)->name));
}

void Interpreter::deleteItem(const Value& container, const Value& key) {
    if (container.is(Kind::Dict)) {
        if (!container.as<DictObject>().erase(key)) raiseKeyError(key);
    } else if (container.is(Kind::List)) {
        auto& items = container.as<ListObject>().items;
        if (key.is(Kind::Slice)) {
            std::vector<size_t> doomed = slicePositions(key.as<SliceObject>(), items.size());
            std::sort(doomed.begin(), doomed.end());
            for (auto it = doomed.rbegin(); it != doomed.rend(); ++it) items.erase(items.begin() + static_cast<std::ptrdiff_t>(*it));
            return;
        }
        const int64_t i = normalizeIndex(indexValue(key, "list"), items.size(), "list assignment");
        items.erase(items.begin() + i);
    } else if (auto method = container.is(Kind::Instance) ? findAttr(container, "__delitem__") : std::nullopt) {
        call(*method, {key});
    } else {
        typeError(fmt::format("'{}' object doesn't support item deletion", classOf(container)->name));
    }
}

bool Interpreter::truthy(const Value& v) {
    switch (v.kind()) {
        case Kind::None:
        case Kind::Null: return false;
        case Kind::Bool: return v.asBool();
        case Kind::Int: return v.asInt() != 0;
        case Kind::Float: return v.asFloat() != 0.0;
        case Kind::Str: return !v.str().empty();
        case Kind::List: return !v.as<ListObject>().items.empty();
        case Kind::Tuple: return !v.as<TupleObject>().items.empty();
        case Kind::Dict: return !v.as<DictObject>().entries().empty();
        case Kind::Set: return !v.as<SetObject>().items.empty();
        case Kind::Tensor: return callOp("Tensor.__bool__", {v}).asBool();
        case Kind::Instance:
            if (auto method = findAttr(v, "__bool__")) return truthy(call(*method, {}));
            if (auto method = findAttr(v, "__len__")) return call(*method, {}).asInt() != 0;
            return true;
        default: return true;
    }
}

int64_t Interpreter::length(const Value& v) {
    switch (v.kind()) {
        case Kind::Str: return static_cast<int64_t>(v.str().size());
        case Kind::List: return static_cast<int64_t>(v.as<ListObject>().items.size());
        case Kind::Tuple: return static_cast<int64_t>(v.as<TupleObject>().items.size());
        case Kind::Dict: return static_cast<int64_t>(v.as<DictObject>().entries().size());
        case Kind::Set: return static_cast<int64_t>(v.as<SetObject>().items.size());
        case Kind::Tensor: return callOp("Tensor.__len__", {v}).asInt();
        case Kind::Instance:
            if (auto method = findAttr(v, "__len__")) return call(*method, {}).asInt();
            break;
        case Kind::Class:
            if (auto method = metaclassMethod(v, "__len__")) return call(*method, {}).asInt();
            break;
        default: break;
    }
    typeError(fmt::format("object of type '{}' has no len()", classOf(v)->name));
}

Value Interpreter::iterate(const Value& iterable) {
    auto overItems = [](auto owner, const ValueList* items) {
        size_t index = 0;
        return Value(std::make_shared<IteratorObject>([owner, items, index]() mutable -> std::optional<Value> {
            if (index >= items->size()) return std::nullopt;
            return (*items)[index++];
        }));
    };
    switch (iterable.kind()) {
        case Kind::Iterator: return iterable;
        case Kind::List: return overItems(iterable.object(), &iterable.as<ListObject>().items);
        case Kind::Tuple: return overItems(iterable.object(), &iterable.as<TupleObject>().items);
        case Kind::Set: return overItems(iterable.object(), &iterable.as<SetObject>().items);
        case Kind::Dict: {
            ValueList keys;
            for (auto& entry : iterable.as<DictObject>().entries()) keys.push_back(entry.first);
            return iterate(makeList(std::move(keys)));
        }
        case Kind::Str: {
            ValueList chars;
            for (char c : iterable.str()) chars.push_back(makeStr(std::string(1, c)));
            return iterate(makeList(std::move(chars)));
        }
        case Kind::Tensor: {
            int64_t count = length(iterable);
            int64_t index = 0;
            return Value(std::make_shared<IteratorObject>([this, iterable, count, index]() mutable -> std::optional<Value> {
                if (index >= count) return std::nullopt;
                return getItem(iterable, Value(index++));
            }));
        }
        case Kind::Instance:
            if (auto method = findAttr(iterable, "__iter__")) return iterate(call(*method, {}));
            break;
        case Kind::Class:
            if (auto method = metaclassMethod(iterable, "__iter__")) return iterate(call(*method, {}));
            break;
        default: break;
    }
    typeError(fmt::format("'{}' object is not iterable", classOf(iterable)->name));
}

ValueList Interpreter::toList(const Value& iterable) {
    if (iterable.is(Kind::List)) return iterable.as<ListObject>().items;
    if (iterable.is(Kind::Tuple)) return iterable.as<TupleObject>().items;
    ValueList items;
    Value iterator = iterate(iterable);
    auto& next = iterator.as<IteratorObject>().next;
    while (auto item = next()) items.push_back(std::move(*item));
    return items;
}

}  // namespace eng::vm
