// Symbolic handlers for the stack, names, constants, containers, unpacking and control flow. Jumps on traced
// values are resolved at trace time (Python values are guarded first); a jump on a tensor breaks the graph.
#include <fmt/core.h>

#include <algorithm>

#include "capture/symbolic_eval.h"

namespace eng::capture {

using frontend::Opcode;

vm::Value constantAsValue(const frontend::Constant& constant) {
    return std::visit(
        [](const auto& c) -> vm::Value {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, frontend::NoneValue>) return vm::Value();
            else if constexpr (std::is_same_v<T, frontend::EllipsisValue>) return vm::ellipsisValue();
            else if constexpr (std::is_same_v<T, std::string>) return vm::makeStr(c);
            else if constexpr (std::is_same_v<T, frontend::ConstantTuple>) {
                vm::ValueList items;
                for (const frontend::Constant& item : c.items) items.push_back(constantAsValue(item));
                return vm::makeTuple(std::move(items));
            } else if constexpr (std::is_same_v<T, std::shared_ptr<const frontend::CodeObject>>) {
                return vm::Value(std::make_shared<vm::CodeRefObject>(c));
            } else {
                return vm::Value(c);
            }
        },
        constant.value);
}

VarRef container(Variable::Kind kind, std::vector<VarRef> items) {
    auto v = std::make_shared<Variable>();
    v->kind = kind;
    v->items = std::move(items);
    v->fresh = true;
    if (kind == Variable::Kind::Tuple) v->value = vm::makeTuple({});
    return v;
}

namespace {

std::vector<VarRef> popN(TraceFrame& frame, size_t n) {
    std::vector<VarRef> items(frame.stack.end() - static_cast<long>(n), frame.stack.end());
    frame.stack.resize(frame.stack.size() - n);
    return items;
}

/// Python-side mutation of a container the trace did not create would need replaying after the graph.
void requireFresh(Tracer& tracer, const VarRef& target, const std::string& what) {
    if (!target->fresh)
        tracer.unsupported("Unsupported mutation", fmt::format("Dynamo does not replay {} on a value from outside the compiled frame.", what),
                           {}, what);
}

/// A global of the frame's module; one of another module (an inlined function's) is read through that module, as
/// Dynamo's G['__import_dataclasses']._init_fields.
SourceRef globalSource(Tracer& tracer, const TraceFrame& frame, const std::string& name) {
    if (frame.globals == tracer.rootFrame()->globals) return Source::global(name);
    auto module = frame.globals->find("__name__");
    if (module == frame.globals->end() || !module->second.is(vm::Kind::Str)) return Source::global(name);
    return Source::child(Source::importedModule(module->second.str()), Source::Kind::Attr, name);
}

}  // namespace

[[noreturn]] void unsupportedInstruction(Tracer& tracer, const frontend::Instruction& in) {
    std::string name(frontend::opcodeInfo(in.opcode).name);
    tracer.unsupported("Missing bytecode handler", fmt::format("Dynamo does not know how to handle the bytecode instruction `{}`.", name),
                       {fmt::format("Do not trace code that produces the `{}` bytecode instruction (see https://docs.python.org/3/library/dis.html for bytecode semantics).", name),
                        "It may be possible to write Dynamo tracing rules for this code. Please report an issue to PyTorch if you encounter this graph break often and it is causing performance issues."},
                       fmt::format("{} with args ()", name), 275);
}

void evaluateInstruction(Tracer& tracer, TraceFrame& frame) {
    const frontend::Instruction in = frame.code->instructions[frame.pc];
    auto& stack = frame.stack;
    switch (in.opcode) {
        case Opcode::Nop: break;
        case Opcode::PopTop: stack.pop_back(); break;
        case Opcode::PushNull: stack.push_back(tracer.null()); break;
        case Opcode::Copy: stack.push_back(stack[stack.size() - in.arg]); break;
        case Opcode::Swap: std::swap(stack.back(), stack[stack.size() - in.arg]); break;
        case Opcode::LoadConst: stack.push_back(tracer.constant(constantAsValue(frame.code->constants[in.arg]))); break;
        case Opcode::LoadFast: {
            const VarRef& v = frame.locals[in.arg];
            if (!v)
                tracer.unsupported("Unbound local", fmt::format("local variable '{}' is read before it is assigned.", frame.code->varNames[in.arg]),
                                   {}, "LOAD_FAST " + frame.code->varNames[in.arg]);
            if (v->kind == Variable::Kind::Python) tracer.guardValue(v);
            stack.push_back(v);
            break;
        }
        case Opcode::StoreFast: {
            VarRef v = popVar(frame);
            // Dynamo's set_name_hint: a tensor stored to a local names its node after the local.
            if (v->kind == Variable::Kind::Tensor && v->node) tracer.graph().renameOnce(v->node, frame.code->varNames[in.arg]);
            frame.locals[in.arg] = std::move(v);
            break;
        }
        case Opcode::DeleteFast: frame.locals[in.arg].reset(); break;
        case Opcode::LoadGlobal: {
            const std::string& name = frame.code->names[in.arg];
            // A global the trace stored reads back as stored (the real dict gets it after the graph).
            if (std::optional<VarRef> stored = tracer.pendingGlobal(*frame.globals, name); stored && *stored) {
                // A global the trace created (absent before it): Dynamo looks it up in the real globals, misses, and
                // fails the frame, which then runs eagerly (no graph, no graph break counted).
                if (!frame.globals->contains(name)) {
                    try {
                        tracer.unsupported("failed to find name in frame builtins", fmt::format("Failed to find name `{}` in frame's builtins.", name),
                                           {"This is likely to be a Dynamo bug. Please report an issue to PyTorch."}, "", 354);
                    } catch (Unsupported& u) {
                        if (!frame.parent) u.info.skipFrame = true;
                        throw;
                    }
                }
                stack.push_back(*stored);
                break;
            }
            auto it = frame.globals->find(name);
            if (it != frame.globals->end()) {
                VarRef v = tracer.wrapSource(it->second, globalSource(tracer, frame, name));
                if (v->kind != Variable::Kind::Tensor) tracer.guardValue(v);
                stack.push_back(v);
                break;
            }
            auto builtin = tracer.vm().builtins().find(name);
            if (builtin == tracer.vm().builtins().end())
                tracer.unsupported("Undefined global", fmt::format("name '{}' is not defined", name), {}, "LOAD_GLOBAL " + name);
            stack.push_back(tracer.constant(builtin->second));
            break;
        }
        case Opcode::StoreGlobal: tracer.storeGlobal(frame, frame.code->names[in.arg], popVar(frame)); break;
        case Opcode::BuildTuple:
        case Opcode::BuildList: {
            auto items = popN(frame, in.arg);
            stack.push_back(container(in.opcode == Opcode::BuildTuple ? Variable::Kind::Tuple : Variable::Kind::List, std::move(items)));
            break;
        }
        case Opcode::BuildMap: {
            auto items = popN(frame, 2 * static_cast<size_t>(in.arg));
            auto dict = container(Variable::Kind::Dict, {});
            for (size_t i = 0; i < items.size(); i += 2) {
                dict->keys.push_back(tracer.dictKey(items[i]));
                dict->items.push_back(items[i + 1]);
            }
            stack.push_back(dict);
            break;
        }
        case Opcode::BuildString: {
            auto items = popN(frame, in.arg);
            std::string text;
            for (const VarRef& item : items) {
                if (!tracer.isConstant(item)) unsupportedInstruction(tracer, in);
                text += item->value.str();
            }
            stack.push_back(tracer.constant(vm::makeStr(text)));
            break;
        }
        case Opcode::FormatValue: {
            VarRef spec = (in.arg & 0x04) ? popVar(frame) : tracer.constant(vm::makeStr(""));
            VarRef value = popVar(frame);
            if (!tracer.isConstant(value) || !tracer.isConstant(spec)) unsupportedInstruction(tracer, in);
            vm::Value v = tracer.exampleOf(value);
            if ((in.arg & 3) == 1) v = vm::makeStr(tracer.vm().str(v));
            if ((in.arg & 3) == 2) v = vm::makeStr(tracer.vm().repr(v));
            stack.push_back(tracer.constant(vm::makeStr(tracer.vm().format(v, spec->value.str()))));
            break;
        }
        case Opcode::ListAppend: {
            VarRef v = popVar(frame);
            VarRef& list = stack[stack.size() - in.arg];
            requireFresh(tracer, list, "list.append");
            list->items.push_back(v);
            break;
        }
        case Opcode::ListExtend: {
            VarRef v = popVar(frame);
            VarRef& list = stack[stack.size() - in.arg];
            requireFresh(tracer, list, "list.extend");
            for (const VarRef& item : tracer.unpack(v)) list->items.push_back(item);
            break;
        }
        case Opcode::MapAdd: {
            VarRef value = popVar(frame);
            VarRef key = popVar(frame);
            VarRef& dict = stack[stack.size() - in.arg];
            dict->keys.push_back(tracer.dictKey(key));
            dict->items.push_back(value);
            break;
        }
        case Opcode::DictUpdate:
        case Opcode::DictMerge: {
            VarRef source = popVar(frame);
            VarRef& dict = stack[stack.size() - in.arg];
            if (dict->kind != Variable::Kind::Dict || !dict->fresh) unsupportedInstruction(tracer, in);
            for (auto& [key, value] : tracer.dictPairs(source, true)) {
                // A repeated keyword is the VM's TypeError, raised where the instruction runs.
                if (in.opcode == Opcode::DictMerge &&
                    std::any_of(dict->keys.begin(), dict->keys.end(), [&](const vm::Value& k) { return vm::valuesEqual(k, key->value); }))
                    unsupportedInstruction(tracer, in);
                tracer.storeItem(dict, key, value);
            }
            break;
        }
        case Opcode::BuildSet: {
            // A set of constants is a constant the trace owns; one holding tensors is a traced set.
            auto items = popN(frame, in.arg);
            if (!std::all_of(items.begin(), items.end(), [&](const VarRef& item) { return tracer.isConstant(item); })) {
                stack.push_back(tracer.setOf(items));
                break;
            }
            auto set = std::make_shared<vm::SetObject>();
            for (const VarRef& item : items) {
                tracer.argOf(item);
                set->add(tracer.exampleOf(item));
            }
            VarRef v = tracer.constant(vm::Value(set));
            v->fresh = true;
            stack.push_back(v);
            break;
        }
        case Opcode::SetAdd:
        case Opcode::SetUpdate: {
            VarRef source = popVar(frame);
            VarRef& set = stack[stack.size() - in.arg];
            std::vector<VarRef> added = in.opcode == Opcode::SetAdd ? std::vector<VarRef>{source} : tracer.unpack(source);
            // A set display still of constants that gets a traced value becomes a traced set.
            if (set->kind == Variable::Kind::Python && set->fresh && set->value.is(vm::Kind::Set) &&
                !std::all_of(added.begin(), added.end(), [&](const VarRef& item) { return tracer.isConstant(item); })) {
                std::vector<VarRef> constants;
                for (const vm::Value& item : set->value.as<vm::SetObject>().items) constants.push_back(tracer.constant(item));
                set = tracer.setOf(constants);
            }
            if (set->kind == Variable::Kind::Set) {
                for (const VarRef& item : added) tracer.addToSet(set, item);
                break;
            }
            if (!set->fresh || !set->value.is(vm::Kind::Set)) unsupportedInstruction(tracer, in);
            for (const VarRef& item : added) {
                if (!tracer.isConstant(item)) unsupportedInstruction(tracer, in);
                tracer.argOf(item);
                set->value.as<vm::SetObject>().add(tracer.exampleOf(item));
            }
            break;
        }
        case Opcode::UnpackEx: {
            VarRef v = popVar(frame);
            std::vector<VarRef> items = tracer.unpack(v);
            size_t before = in.arg & 0xFF;
            size_t after = in.arg >> 8;
            if (items.size() < before + after) unsupportedInstruction(tracer, in);  // the VM raises the ValueError
            for (size_t i = items.size(); i-- > items.size() - after;) stack.push_back(items[i]);
            stack.push_back(container(Variable::Kind::List, std::vector<VarRef>(items.begin() + static_cast<long>(before),
                                                                                items.end() - static_cast<long>(after))));
            for (size_t i = before; i-- > 0;) stack.push_back(items[i]);
            break;
        }
        case Opcode::ListToTuple: {
            VarRef list = popVar(frame);
            stack.push_back(container(Variable::Kind::Tuple, list->items));
            break;
        }
        case Opcode::UnpackSequence: {
            VarRef v = popVar(frame);
            std::vector<VarRef> items = tracer.unpack(v);
            if (items.size() != in.arg)
                tracer.unsupported("Unpacking mismatch", fmt::format("expected {} values to unpack, got {}", in.arg, items.size()), {},
                                   "UNPACK_SEQUENCE");
            for (size_t i = items.size(); i-- > 0;) stack.push_back(items[i]);
            break;
        }
        case Opcode::GetIter: {
            VarRef v = popVar(frame);
            stack.push_back(tracer.iteratorOf(v));
            break;
        }
        case Opcode::ForIter: {
            VarRef iterator = stack.back();
            if (iterator->kind != Variable::Kind::Iterator) unsupportedInstruction(tracer, in);
            std::optional<VarRef> item;
            try {
                item = tracer.nextOf(iterator);
            } catch (Unsupported& u) {
                // A break inside the function a lazy map/filter or a generator calls: FOR_ITER is no resume point in the
                // root frame.
                if (!frame.parent && (!iterator->lazySources.empty() || iterator->generator)) u.info.skipFrame = true;
                throw;
            }
            if (item) {
                stack.push_back(*item);
            } else {
                stack.pop_back();
                frame.pc = in.arg;
                return;
            }
            break;
        }
        case Opcode::JumpForward:
        case Opcode::JumpBackward: frame.pc = in.arg; return;
        case Opcode::PopJumpIfFalse:
        case Opcode::PopJumpIfTrue: {
            // The condition stays on the stack while it is examined: a data-dependent one breaks the graph here.
            bool truth = tracer.truthOf(frame, stack.back());
            stack.pop_back();
            if (truth == (in.opcode == Opcode::PopJumpIfTrue)) {
                frame.pc = in.arg;
                return;
            }
            break;
        }
        case Opcode::PopJumpIfNone:
        case Opcode::PopJumpIfNotNone: {
            VarRef v = stack.back();
            if (v->kind == Variable::Kind::Python) tracer.guardValue(v);
            bool isNone = v->kind == Variable::Kind::Python && v->value.isNone();
            stack.pop_back();
            if (isNone == (in.opcode == Opcode::PopJumpIfNone)) {
                frame.pc = in.arg;
                return;
            }
            break;
        }
        case Opcode::ReturnValue: frame.returned = popVar(frame); return;
        case Opcode::YieldValue:
            // A generator's frame pauses here (Tracer::nextOf resumes it); the root frame is never a generator.
            frame.yielded = popVar(frame);
            return;
        case Opcode::Send: {
            // `yield from`: the delegate's next item is yielded in turn; its return value is the expression's value.
            VarRef sent = popVar(frame);
            VarRef delegate = stack.back();
            if (!tracer.isConstant(sent) || !sent->value.isNone() || delegate->kind != Variable::Kind::Iterator)
                unsupportedInstruction(tracer, in);
            if (std::optional<VarRef> item = tracer.nextOf(delegate)) {
                stack.push_back(*item);
                break;
            }
            stack.back() = delegate->generator && delegate->generator->returned ? *delegate->generator->returned
                                                                                 : tracer.constant(vm::Value());
            frame.pc = in.arg;
            return;
        }
        case Opcode::ReturnConst: frame.returned = tracer.constant(constantAsValue(frame.code->constants[in.arg])); return;
        case Opcode::ImportName: {
            // The VM's IMPORT_NAME takes the from-list only (no level: imports are absolute).
            VarRef fromList = popVar(frame);
            const std::string& name = frame.code->names[in.arg];
            auto& modules = tracer.vm().modules();
            auto it = modules.find(name);
            if (it == modules.end()) {
                // Dynamo imports at trace time (IMPORT_NAME calls __import__): a module the VM can load is loaded now.
                try {
                    tracer.vm().importModule(name);
                } catch (const std::exception&) {
                    unsupportedInstruction(tracer, in);
                }
                if ((it = modules.find(name)) == modules.end()) unsupportedInstruction(tracer, in);
            }
            stack.push_back(tracer.constant(fromList->value.isNone() ? modules.at(name.substr(0, name.find('.'))) : it->second));
            break;
        }
        case Opcode::ImportFrom: {
            auto attribute = tracer.vm().findAttr(stack.back()->value, frame.code->names[in.arg]);
            if (!attribute) unsupportedInstruction(tracer, in);
            stack.push_back(tracer.constant(*attribute));
            break;
        }
        default:
            if (evaluateOperatorInstruction(tracer, frame, in) || evaluateCallInstruction(tracer, frame, in) ||
                evaluateClosureInstruction(tracer, frame, in) || evaluateWith(tracer, frame, in) ||
                evaluateExceptionInstruction(tracer, frame, in))
                break;
            unsupportedInstruction(tracer, in);
    }
    ++frame.pc;
}

}  // namespace eng::capture
