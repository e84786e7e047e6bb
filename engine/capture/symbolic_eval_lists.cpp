// The list methods Dynamo's ListVariable traces besides append/extend/clear (side_effects.cpp): pop, insert,
// remove, index, count, reverse, sort, copy, and slice stores and deletions. They change the traced items of a
// list the trace made, or of one from outside the frame (its contents guarded first), which gets them after the
// graph has run, as append does.
#include <fmt/core.h>

#include <algorithm>

#include "capture/symbolic_eval.h"
#include "capture/tracer.h"

namespace eng::capture {

namespace {

int64_t constantInt(Tracer& tracer, const VarRef& v, const std::string& method) {
    if (!tracer.isConstant(v) || !(tracer.exampleOf(v).is(vm::Kind::Int) || tracer.exampleOf(v).is(vm::Kind::Bool)))
        tracer.unsupported("Unsupported method call", fmt::format("list.{}() with a traced index.", method), {}, "call_method ListVariable() " + method);
    tracer.argOf(v);
    return tracer.exampleOf(v).asInt();
}

}  // namespace

bool Tracer::listItemEquals(const VarRef& item, const VarRef& value, const std::string& method) {
    // list.index/count/remove compare by identity first, then ==; == of traced values is no constant.
    if (item.get() == value.get()) return true;
    if (std::optional<bool> equal = userEquals(item, value)) return *equal;
    if (!isConstant(item) || !isConstant(value))
        unsupported("Unsupported method call", fmt::format("list.{}() compares traced values.", method), {}, "call_method ListVariable() " + method);
    argOf(item);
    argOf(value);
    return vm::valuesEqual(exampleOf(item), exampleOf(value));
}

bool isTracedListMethod(const std::string& name) {
    static const std::set<std::string> names = {"pop", "insert", "remove", "index", "count", "reverse", "sort", "copy"};
    return names.contains(name);
}

VarRef Tracer::callListMethod(const VarRef& self, const std::string& name, std::vector<VarRef> args, std::vector<std::pair<std::string, VarRef>> kwargs) {
    auto arity = [&](size_t least, size_t most) {
        if (args.size() < least || args.size() > most || (name != "sort" && !kwargs.empty()))
            unsupported("Unsupported method call", fmt::format("list.{}() with these arguments.", name), {}, "call_method ListVariable() " + name);
    };
    auto& items = self->items;
    const bool outside = self->source && !self->fresh;
    // The replay sets the whole list, so it holds only for lists of the contents traced: guard them first.
    if (self->source) guardValue(self);
    auto changed = [&] {
        if (outside) addEffect(PendingEffect{SideEffect::Kind::ListContents, self.get(), self->source, "", vm::Value(), self});
    };
    const auto n = static_cast<int64_t>(items.size());
    if (name == "copy") {
        arity(0, 0);
        auto copy = std::make_shared<Variable>();
        copy->kind = Variable::Kind::List;
        copy->fresh = true;
        copy->items = items;
        return copy;
    }
    if (name == "index" || name == "count") {
        arity(1, 1);
        int64_t count = 0;
        for (int64_t i = 0; i < n; ++i)
            if (listItemEquals(items[static_cast<size_t>(i)], args[0], name)) {
                if (name == "index") return constant(vm::Value(i));
                ++count;
            }
        if (name == "index") vm::raise("ValueError", "list.index(x): x not in list");
        return constant(vm::Value(count));
    }
    if (name == "pop") {
        arity(0, 1);
        if (items.empty()) vm::raise("IndexError", "pop from empty list");
        int64_t i = args.empty() ? n - 1 : constantInt(*this, args[0], name);
        if (i < 0) i += n;
        if (i < 0 || i >= n) vm::raise("IndexError", "pop index out of range");
        VarRef popped = items[static_cast<size_t>(i)];
        items.erase(items.begin() + i);
        changed();
        return popped;
    }
    if (name == "insert") {
        arity(2, 2);
        int64_t i = constantInt(*this, args[0], name);
        if (i < 0) i = std::max<int64_t>(0, i + n);
        items.insert(items.begin() + std::min(i, n), args[1]);
        changed();
        return constant(vm::Value());
    }
    if (name == "remove") {
        arity(1, 1);
        for (int64_t i = 0; i < n; ++i)
            if (listItemEquals(items[static_cast<size_t>(i)], args[0], name)) {
                items.erase(items.begin() + i);
                changed();
                return constant(vm::Value());
            }
        vm::raise("ValueError", "list.remove(x): x not in list");
    }
    if (name == "reverse") {
        arity(0, 0);
        std::reverse(items.begin(), items.end());
        changed();
        return constant(vm::Value());
    }
    // sort(key=..., reverse=...): sorted()'s own tracing (keys through the trace), written back in place.
    arity(0, 0);
    VarRef sorted = callFunction(*current_, constant(vm_.builtins().at("sorted")), {self}, std::move(kwargs));
    items = unpack(sorted);
    changed();
    return constant(vm::Value());
}

void Tracer::storeListSlice(const VarRef& list, const vm::SliceObject& slice, const VarRef& value) {
    if (list->source && !list->fresh) guardValue(list);
    std::vector<VarRef>& items = list->items;
    // Which positions the slice names, by the VM's own slicing of their indices.
    vm::ValueList indexList;
    for (size_t i = 0; i < items.size(); ++i) indexList.push_back(vm::Value(static_cast<int64_t>(i)));
    vm::Value picked = vm_.getItem(vm::makeList(indexList), vm::Value(std::make_shared<vm::SliceObject>(slice)));
    std::vector<size_t> chosen;
    for (const vm::Value& p : picked.as<vm::ListObject>().items) chosen.push_back(static_cast<size_t>(p.asInt()));
    const bool plain = slice.step.isNone() || (slice.step.isNumber() && slice.step.asInt() == 1);
    if (!value) {
        std::sort(chosen.rbegin(), chosen.rend());
        for (size_t i : chosen) items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (plain) {
        // A plain slice is replaced by any number of items; an empty one inserts at its (clamped) start.
        std::vector<VarRef> replacement = unpack(value);
        size_t start = items.size();
        if (!chosen.empty()) {
            start = chosen.front();
        } else {
            vm::Value from = vm_.getItem(vm::makeList(indexList), vm::Value(std::make_shared<vm::SliceObject>(slice.start, vm::Value(), vm::Value())));
            if (!from.as<vm::ListObject>().items.empty()) start = static_cast<size_t>(from.as<vm::ListObject>().items.front().asInt());
        }
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(start), items.begin() + static_cast<std::ptrdiff_t>(start + chosen.size()));
        items.insert(items.begin() + static_cast<std::ptrdiff_t>(start), replacement.begin(), replacement.end());
    } else {
        std::vector<VarRef> replacement = unpack(value);
        if (replacement.size() != chosen.size())
            vm::raise("ValueError", fmt::format("attempt to assign sequence of size {} to extended slice of size {}", replacement.size(), chosen.size()));
        for (size_t k = 0; k < chosen.size(); ++k) items[chosen[k]] = replacement[k];
    }
    if (list->source && !list->fresh) addEffect(PendingEffect{SideEffect::Kind::ListContents, list.get(), list->source, "", vm::Value(), list});
}

}  // namespace eng::capture
