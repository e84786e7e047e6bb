// Iterators and dict merging during symbolic evaluation: iter() and next() of traced iterators, lazy map/filter
// (their function runs through the trace when an item is asked for), generators made in the trace (run to their
// next yield the same way, and their send(), throw() and close() too), and PEP 584's `|` / `|=` on plain dicts.
#include <fmt/core.h>

#include "capture/symbolic_eval.h"
#include "ops/operators.h"

namespace eng::capture {

VarRef Tracer::iteratorOf(const VarRef& iterable) {
    if (iterable->kind == Variable::Kind::Iterator) return iterable;
    breakOnMetaclassIteration(*this, iterable);
    return container(Variable::Kind::Iterator, unpack(iterable));
}

std::optional<VarRef> Tracer::nextOf(const VarRef& iterator) {
    Variable& it = *iterator;
    if (it.generator) return resumeGenerator(it, constant(vm::Value()), nullptr);  // next() sends None
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

std::optional<VarRef> Tracer::resumeGenerator(Variable& it, const VarRef& sent, const VarRef& thrown) {
    // A generator made in the trace runs through it to its next yield, called from the frame asking for the item.
    TraceFrame& g = *it.generator;
    if (g.returned) {
        if (thrown) throw TracedRaise{thrown};
        return std::nullopt;
    }
    if (!g.started) {
        if (thrown) {
            // Thrown into a generator that never ran: no handler of its body covers it, so it finishes at once.
            g.returned = constant(vm::Value());
            throw TracedRaise{thrown};
        }
        if (!isConstant(sent) || !sent->value.isNone()) vm::typeError("can't send non-None value to a just-started generator");
    } else if (!thrown) {
        g.stack.push_back(sent);  // the paused yield expression's value
        ++g.pc;
    }
    g.started = true;
    g.parent = current_;
    ++inlineDepth_;
    try {
        // throw() / close(): the paused YIELD_VALUE raises, so the handler covering it (an except, a finally, a
        // with-block's exit) takes the exception, as CPython's gen_send_ex does.
        if (thrown && !catchRaise(g, thrown)) throw TracedRaise{thrown};
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

VarRef Tracer::callGeneratorMethod(const VarRef& method, const std::vector<VarRef>& args,
                                   const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    // Dynamo's LocalGeneratorObjectVariable.call_method: the generator's frame runs through the trace.
    Variable& it = *method->self;
    TraceFrame& g = *it.generator;
    const std::string& name = method->name;
    const size_t expected = name == "send" ? 1 : name == "throw" ? 3 : 0;
    if (!kwargs.empty() || args.size() > expected || (name == "send" && args.empty()) || (name == "throw" && args.empty()))
        vm::typeError(fmt::format("generator.{}() got unexpected arguments", name));
    auto exceptionOf = [&](const char* cls, std::vector<VarRef> arguments) {
        return constructException(*this, *current_, constant(vm::Value(vm_.builtinClass(cls))), std::move(arguments), {});
    };
    // send() / throw() / __next__ give the next yielded value, or raise StopIteration(return value) when the
    // generator returns instead.
    auto yieldedOrStop = [&](std::optional<VarRef> item) {
        if (item) return *item;
        VarRef value = g.returned ? *g.returned : constant(vm::Value());
        VarRef stop = exceptionOf("StopIteration", {value});
        storeObjectAttr(stop, "value", value);
        throw TracedRaise{stop};
    };
    if (name == "__next__") return yieldedOrStop(resumeGenerator(it, constant(vm::Value()), nullptr));
    if (name == "send") return yieldedOrStop(resumeGenerator(it, args[0], nullptr));
    if (name == "throw") {
        // throw(exc) or the old throw(type, value[, tb]): the value is the instance when given; a class is called.
        VarRef exception = args.size() > 1 && !(isConstant(args[1]) && args[1]->value.isNone()) ? args[1] : args[0];
        if (exception->kind == Variable::Kind::Python && exception->value.is(vm::Kind::Class) &&
            exception->value.as<vm::ClassObject>().isSubclassOf(*vm_.builtinClass("BaseException")))
            exception = callFunction(*current_, exception, {}, {});
        if (!isTracedException(*this, exception))
            unsupported("Unsupported generator method", "Dynamo throws only exceptions made in the compiled frame into a generator.", {},
                        "LocalGeneratorObjectVariable throw");
        return yieldedOrStop(resumeGenerator(it, constant(vm::Value()), exception));
    }
    // close(): GeneratorExit raised at the paused yield; the generator's finally and except clauses run now.
    if (!g.started || g.returned) {
        g.started = true;
        if (!g.returned) g.returned = constant(vm::Value());
        return constant(vm::Value());
    }
    try {
        if (resumeGenerator(it, constant(vm::Value()), exceptionOf("GeneratorExit", {})))
            vm::raise("RuntimeError", "generator ignored GeneratorExit");
    } catch (TracedRaise& raised) {
        const auto& cls = *raised.exception->value.as<vm::InstanceObject>().cls;
        if (!cls.isSubclassOf(*vm_.builtinClass("GeneratorExit")) && !cls.isSubclassOf(*vm_.builtinClass("StopIteration"))) throw;
    }
    return constant(vm::Value());
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
