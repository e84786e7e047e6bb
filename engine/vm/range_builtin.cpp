// The builtin range: construction from ints (or tensors through __index__), iteration, len, indexing and slicing
// (CPython's compute_slice), index/count, `in` and equality computed from the bounds without walking the range.
#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "ops/operators.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

Value makeIterator(std::function<std::optional<Value>()> next) { return Value(std::make_shared<IteratorObject>(std::move(next))); }

}  // namespace

void defineRange(Interpreter& vm, Namespace& builtins) {
    auto range = vm.defineClass("range", "object");
    builtins["range"] = Value(range);
    range->dict["__new__"] = makeNative("range", [](Interpreter& machine, CallArgs& args) {
        if (args.positional.size() < 2 || args.positional.size() > 4)
            typeError(fmt::format("range expected at least 1 argument, got {}", args.positional.size() - 1));
        ValueList bounds;
        for (size_t i = 1; i < args.positional.size(); ++i) {
            const Value& b = args.positional[i];
            if (b.is(Kind::Tensor)) {
                bounds.push_back(callOp("Tensor.__index__", {b}));
            } else if (!b.is(Kind::Int) && !b.is(Kind::Bool)) {
                typeError(fmt::format("'{}' object cannot be interpreted as an integer", machine.classOf(b)->name));
            } else {
                bounds.push_back(Value(b.asInt()));
            }
        }
        auto instance = std::make_shared<InstanceObject>(args.positional[0].ref<ClassObject>());
        instance->attributes["start"] = bounds.size() == 1 ? Value(0) : bounds[0];
        instance->attributes["stop"] = bounds.size() == 1 ? bounds[0] : bounds[1];
        instance->attributes["step"] = bounds.size() == 3 ? bounds[2] : Value(1);
        if (instance->attributes["step"].asInt() == 0) raise("ValueError", "range() arg 3 must not be zero");
        return Value(instance);
    });
    auto bounds = [](const Value& self) {
        auto& a = self.as<InstanceObject>().attributes;
        return std::array<int64_t, 3>{a.at("start").asInt(), a.at("stop").asInt(), a.at("step").asInt()};
    };
    auto count = [bounds](const Value& self) {
        auto [start, stop, step] = bounds(self);
        if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
        return start > stop ? (start - stop - step - 1) / -step : 0;
    };
    range->dict["__iter__"] = makeNative("__iter__", [bounds, count](Interpreter&, CallArgs& args) {
        auto [start, stop, step] = bounds(args.positional.at(0));
        int64_t n = count(args.positional.at(0));
        int64_t i = 0;
        return makeIterator([start, step, n, i]() mutable -> std::optional<Value> {
            if (i >= n) return std::nullopt;
            return Value(start + step * i++);
        });
    });
    range->dict["__len__"] = makeNative("__len__", [count](Interpreter&, CallArgs& args) { return Value(count(args.positional.at(0))); });
    range->dict["__getitem__"] = makeNative("__getitem__", [bounds, count](Interpreter&, CallArgs& args) {
        auto [start, stop, step] = bounds(args.positional.at(0));
        int64_t n = count(args.positional.at(0));
        if (args.positional.at(1).is(Kind::Slice)) {
            // CPython's compute_slice: the slice's indices over len(r), mapped through r's start and step.
            const auto& slice = args.positional[1].as<SliceObject>();
            const int64_t by = slice.step.isNone() ? 1 : slice.step.asInt();
            if (by == 0) raise("ValueError", "slice step cannot be zero");
            const int64_t lower = by > 0 ? 0 : -1, upper = by > 0 ? n : n - 1;
            auto bound = [&](const Value& b, int64_t fallback) {
                if (b.isNone()) return fallback;
                int64_t i = b.asInt();
                if (i < 0) i += n;
                return std::clamp<int64_t>(i, lower, upper);
            };
            const int64_t from = bound(slice.start, by > 0 ? lower : upper), to = bound(slice.stop, by > 0 ? upper : lower);
            auto sliced = std::make_shared<InstanceObject>(args.positional[0].as<InstanceObject>().cls);
            sliced->attributes["start"] = Value(start + from * step);
            sliced->attributes["stop"] = Value(start + to * step);
            sliced->attributes["step"] = Value(step * by);
            return Value(sliced);
        }
        int64_t i = args.positional.at(1).asInt();
        if (i < 0) i += n;
        if (i < 0 || i >= n) raise("IndexError", "range object index out of range");
        return Value(start + step * i);
    });
    // Position of an int in the range (index raises ValueError when absent, count is 0 or 1), computed from the
    // bounds as CPython's range does, without walking it.
    auto position = [bounds, count](const Value& self, const Value& item) -> std::optional<int64_t> {
        if (!item.is(Kind::Int) && !item.is(Kind::Bool)) return std::nullopt;
        auto [start, stop, step] = bounds(self);
        const int64_t offset = item.asInt() - start;
        if (offset % step != 0) return std::nullopt;
        const int64_t i = offset / step;
        if (i < 0 || i >= count(self)) return std::nullopt;
        return i;
    };
    range->dict["index"] = makeNative("index", [position](Interpreter& machine, CallArgs& args) {
        const Value& item = args.positional.at(1);
        if (auto i = position(args.positional.at(0), item)) return Value(*i);
        raise("ValueError", fmt::format("{} is not in range", machine.repr(item)));
    });
    range->dict["count"] = makeNative("count", [position](Interpreter&, CallArgs& args) {
        return Value(static_cast<int64_t>(position(args.positional.at(0), args.positional.at(1)).has_value()));
    });
    range->dict["__contains__"] = makeNative("__contains__", [position](Interpreter& machine, CallArgs& args) {
        const Value& item = args.positional.at(1);
        if (item.is(Kind::Int) || item.is(Kind::Bool)) return Value(position(args.positional.at(0), item).has_value());
        for (const Value& v : machine.toList(args.positional.at(0)))
            if (machine.truthy(machine.compare(static_cast<uint32_t>(ops::CompareOperator::Equal), v, item))) return Value(true);
        return Value(false);
    });
    // Ranges are equal when they hold the same ints (range(0, 4, 2) == range(0, 3, 2)), as CPython compares them.
    range->dict["__eq__"] = makeNative("__eq__", [bounds, count](Interpreter& machine, CallArgs& args) {
        const Value& other = args.positional.at(1);
        if (!other.is(Kind::Instance) || other.as<InstanceObject>().cls != machine.builtinClass("range")) return Value(false);
        auto [a0, a1, a2] = bounds(args.positional.at(0));
        auto [b0, b1, b2] = bounds(other);
        const int64_t n = count(args.positional.at(0));
        if (n != count(other)) return Value(false);
        return Value(n == 0 || (a0 == b0 && (n == 1 || a2 == b2)));
    });
    range->dict["__repr__"] = makeNative("__repr__", [bounds](Interpreter&, CallArgs& args) {
        auto [start, stop, step] = bounds(args.positional.at(0));
        return makeStr(step == 1 ? fmt::format("range({}, {})", start, stop) : fmt::format("range({}, {}, {})", start, stop, step));
    });
}

}  // namespace eng::vm
