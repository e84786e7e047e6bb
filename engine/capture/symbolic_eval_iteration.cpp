// Iterators and dict merging during symbolic evaluation: iter() and next() of traced iterators, lazy map/filter
// (their function runs through the trace when an item is asked for), generators made in the trace (run to their
// next yield the same way), and PEP 584's `|` / `|=` on plain dicts.
#include "capture/symbolic_eval.h"
#include "ops/operators.h"

namespace eng::capture {

VarRef Tracer::iteratorOf(const VarRef& iterable) {
    if (iterable->kind == Variable::Kind::Iterator) return iterable;
    return container(Variable::Kind::Iterator, unpack(iterable));
}

std::optional<VarRef> Tracer::nextOf(const VarRef& iterator) {
    Variable& it = *iterator;
    if (it.generator) {
        // A generator made in the trace runs through it to its next yield, called from the frame asking for the item.
        TraceFrame& g = *it.generator;
        if (g.returned) return std::nullopt;
        if (g.started) {
            g.stack.push_back(constant(vm::Value()));  // the paused yield expression's value: next() sends None
            ++g.pc;
        }
        g.started = true;
        g.parent = current_;
        ++inlineDepth_;
        try {
            while (!g.returned && !g.yielded) step(g);
        } catch (TracedRaise&) {
            --inlineDepth_;
            g.parent = nullptr;
            g.returned = constant(vm::Value());  // a generator that raised is finished
            throw;
        } catch (...) {
            --inlineDepth_;
            g.parent = nullptr;
            throw;
        }
        --inlineDepth_;
        g.parent = nullptr;
        if (!g.yielded) return std::nullopt;
        VarRef item = *g.yielded;
        g.yielded.reset();
        return item;
    }
    if (it.position < it.items.size()) return it.items[it.position++];
    while (!it.lazySources.empty()) {
        std::vector<VarRef> args;
        for (const VarRef& source : it.lazySources) {
            std::optional<VarRef> item = nextOf(source);
            if (!item) break;
            args.push_back(*item);
        }
        if (args.size() < it.lazySources.size()) {
            it.lazySources.clear();  // the shortest source is exhausted: so is the map
            break;
        }
        VarRef item;
        if (it.name == "zip") {
            item = container(Variable::Kind::Tuple, args);
        } else if (it.name == "enumerate") {
            item = container(Variable::Kind::Tuple, {constant(it.value), args[0]});
            it.value = vm::Value(it.value.asInt() + 1);
        } else if (it.name == "map") {
            item = callFunction(*current_, it.self, args, {});
        } else {
            VarRef keep = it.self->value.isNone() ? args[0] : callFunction(*current_, it.self, args, {});
            if (!truthOf(*current_, keep)) continue;
            item = args[0];
        }
        it.items.push_back(item);
        it.position = it.items.size();
        return item;
    }
    return std::nullopt;
}

std::optional<VarRef> Tracer::dictMergeOp(uint32_t op, const VarRef& a, const VarRef& b) {
    // PEP 584 on plain dicts: `a | b` is a new dict the trace owns (a's items, then b's); `a |= b` stores b's
    // items into a (replayed on a dict from outside the frame).
    const auto operand = ops::decodeBinaryOpArg(op);
    auto plainDict = [](const VarRef& v) {
        return v->kind == Variable::Kind::Dict || (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Dict) && !v->value.as<vm::DictObject>().cls);
    };
    if (!operand || operand->op != ops::BinaryOperator::BitOr || !plainDict(a) || !plainDict(b))
        return std::nullopt;
    // `|=` on a dict that is neither traced nor from outside (a constant the trace owns) folds in the VM.
    if (operand->inplace && a->kind != Variable::Kind::Dict && !a->source) return std::nullopt;
    VarRef target = a;
    if (!operand->inplace) {
        target = std::make_shared<Variable>();
        target->kind = Variable::Kind::Dict;
        target->fresh = true;
        for (auto& [key, value] : dictPairs(a, true)) storeItem(target, key, value);
    }
    for (auto& [key, value] : dictPairs(b, true)) storeItem(target, key, value);
    return target;
}

}  // namespace eng::capture
