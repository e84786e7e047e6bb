// The dispatch loop: one C++ call per Python frame, exceptions as C++ exceptions caught per frame and routed
// through the code object's exception table (CPython 3.11's zero-cost scheme).
#include "vm/interpreter.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "frontend/compiler.h"
#include "frontend/opcodes.h"
#include "tensor/registry.h"

namespace eng::vm {

using frontend::CodeObject;
using frontend::Opcode;

namespace {

Value constantValue(const frontend::Constant& constant) {
    return std::visit(
        [](const auto& c) -> Value {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, frontend::NoneValue>) return Value();
            else if constexpr (std::is_same_v<T, frontend::EllipsisValue>) return ellipsisValue();
            else if constexpr (std::is_same_v<T, std::string>) return makeStr(c);
            else if constexpr (std::is_same_v<T, frontend::ConstantTuple>) {
                ValueList items;
                for (const frontend::Constant& item : c.items) items.push_back(constantValue(item));
                return makeTuple(std::move(items));
            } else if constexpr (std::is_same_v<T, std::shared_ptr<const CodeObject>>) {
                return Value(std::make_shared<CodeRefObject>(c));
            } else {
                return Value(c);
            }
        },
        constant.value);
}

Value pop(ValueList& stack) {
    Value v = std::move(stack.back());
    stack.pop_back();
    return v;
}

const Value& peek(const ValueList& stack, uint32_t depth) { return stack[stack.size() - depth]; }

const ValueList& sequenceItems(const Value& v) {
    return v.is(Kind::List) ? v.as<ListObject>().items : v.as<TupleObject>().items;
}

/// Set by RERAISE so that the frame re-raising does not appear twice in the traceback.
thread_local bool tlsReraising = false;

struct FrameGuard {
    std::vector<Frame*>& frames;
    FrameGuard(std::vector<Frame*>& f, Frame* frame) : frames(f) { frames.push_back(frame); }
    ~FrameGuard() { frames.pop_back(); }
    FrameGuard(const FrameGuard&) = delete;
    FrameGuard& operator=(const FrameGuard&) = delete;
};

}  // namespace

Interpreter::Interpreter(std::ostream& out) : out_(out) {
    installBuiltins(*this, builtins_);
    instanceProtocol_ = installEquality(*this, builtins_);
    instanceProtocolScope_ = std::make_unique<InstanceProtocolScope>(instanceProtocol_.get());
    notImplemented_ = builtins_.at("NotImplemented");
    installCollections(*this);  // before torch: torch._dynamo.utils.counters is a collections.defaultdict
    installTorch(*this);
    installStdlib(*this);
    installInspect(*this);
    installHeapq(*this);
    installAutogradFunction(*this);
}

Interpreter::~Interpreter() {
    *self_ = nullptr;  // generators dropped from here on (with the namespaces) are not closed: no code runs any more
}

std::vector<TracebackEntry> Interpreter::callStack() const {
    std::vector<TracebackEntry> out;
    for (const Frame* f : frames_) out.push_back({f->code->filename, f->code->lineTable.lineOf(f->pc), f->code->name});
    return out;
}

RunResult Interpreter::runScript(const std::string& filename, const std::string& source) {
    auto file = std::make_shared<frontend::SourceFile>(filename, source);
    sources_[filename] = file;
    auto compiled = frontend::compileSource(*file);
    if (!compiled) return RunResult{false, compiled.error().render()};
    scriptDirectory_ = std::filesystem::path(filename).parent_path();
    mainGlobals_ = std::make_shared<Namespace>();
    (*mainGlobals_)["__name__"] = makeStr("__main__");
    (*mainGlobals_)["__file__"] = makeStr(filename);
    try {
        runModuleCode(*compiled, mainGlobals_);
    } catch (...) {
        return RunResult{false, formatUncaught(std::current_exception())};
    }
    return RunResult{};
}

void Interpreter::runModuleCode(const std::shared_ptr<const CodeObject>& code, const std::shared_ptr<Namespace>& globals) {
    Frame frame;
    frame.code = code;
    frame.globals = globals;
    frame.locals = globals.get();
    frame.fast.assign(code->varNames.size(), Value::null());
    runFrame(frame);
}

std::optional<Value> Interpreter::global(const std::string& name) const {
    if (!mainGlobals_) return std::nullopt;
    auto it = mainGlobals_->find(name);
    if (it == mainGlobals_->end()) return std::nullopt;
    return it->second;
}

Value Interpreter::call(const Value& callable, ValueList args, KwArgs kwargs) {
    CallArgs packed{std::move(args), std::move(kwargs)};
    return callArgs(callable, packed);
}

Value Interpreter::runFrame(Frame& f) {
    FrameGuard guard(frames_, &f);
    const CodeObject& code = *f.code;
    const auto& instructions = code.instructions;
    auto [cached, isNew] = constantCache_.try_emplace(&code);
    if (isNew) {
        cached->second.first = f.code;  // keeps the address from being reused while cached
        for (const frontend::Constant& c : code.constants) cached->second.second.push_back(constantValue(c));
    }
    const ValueList& constants = cached->second.second;
    ValueList& stack = f.stack;
    stack.reserve(static_cast<size_t>(code.maxStackDepth) + 4);
    auto nameAt = [&](uint32_t i) -> const std::string& { return code.names[i]; };

    for (;;) {
        try {
            if (!f.pendingThrow.isNull()) {
                // generator.throw(): the exception is raised by the paused YIELD_VALUE.
                Value thrown = std::exchange(f.pendingThrow, Value::null());
                throw RaisedException(thrown);
            }
            for (;;) {
                if (f.instructionBudget >= 0 && f.instructionBudget-- == 0) return Value::null();
                const frontend::Instruction in = instructions[f.pc];
                switch (in.opcode) {
                    case Opcode::Nop: break;
                    case Opcode::PopTop: stack.pop_back(); break;
                    case Opcode::PushNull: stack.push_back(Value::null()); break;
                    case Opcode::Copy: stack.push_back(peek(stack, in.arg)); break;
                    case Opcode::Swap: std::swap(stack.back(), stack[stack.size() - in.arg]); break;
                    case Opcode::LoadConst: stack.push_back(constants[in.arg]); break;
                    case Opcode::LoadFast: {
                        const Value& v = f.fast[in.arg];
                        if (v.isNull())
                            raise("UnboundLocalError", fmt::format("cannot access local variable '{}' where it is not "
                                                                   "associated with a value", code.varNames[in.arg]));
                        stack.push_back(v);
                        break;
                    }
                    case Opcode::StoreFast: f.fast[in.arg] = pop(stack); break;
                    case Opcode::DeleteFast: f.fast[in.arg] = Value::null(); break;
                    case Opcode::LoadDeref:
                    case Opcode::LoadClassDeref: {
                        if (in.opcode == Opcode::LoadClassDeref && f.locals) {
                            auto it = f.locals->find(code.derefName(in.arg));
                            if (it != f.locals->end()) {
                                stack.push_back(it->second);
                                break;
                            }
                        }
                        const auto& cell = f.cells[in.arg];
                        if (!cell->value)
                            raise("NameError", fmt::format("cannot access free variable '{}' where it is not associated "
                                                           "with a value in enclosing scope", code.derefName(in.arg)));
                        stack.push_back(*cell->value);
                        break;
                    }
                    case Opcode::StoreDeref: f.cells[in.arg]->value = pop(stack); break;
                    case Opcode::DeleteDeref: f.cells[in.arg]->value.reset(); break;
                    case Opcode::LoadClosure: stack.push_back(Value(f.cells[in.arg])); break;
                    case Opcode::LoadGlobal:
                    case Opcode::LoadName: {
                        const std::string& name = nameAt(in.arg);
                        if (in.opcode == Opcode::LoadName && f.locals) {
                            auto it = f.locals->find(name);
                            if (it != f.locals->end()) {
                                stack.push_back(it->second);
                                break;
                            }
                        }
                        auto it = f.globals->find(name);
                        if (it != f.globals->end()) {
                            stack.push_back(it->second);
                            break;
                        }
                        auto builtin = builtins_.find(name);
                        if (builtin == builtins_.end()) raise("NameError", fmt::format("name '{}' is not defined", name));
                        stack.push_back(builtin->second);
                        break;
                    }
                    case Opcode::StoreGlobal: (*f.globals)[nameAt(in.arg)] = pop(stack); break;
                    case Opcode::StoreName: {
                        Namespace& names = *(f.locals ? f.locals : f.globals.get());
                        const std::string& name = nameAt(in.arg);
                        if (f.localsOrder && !names.contains(name)) f.localsOrder->push_back(name);
                        names[name] = pop(stack);
                        break;
                    }
                    case Opcode::DeleteGlobal:
                    case Opcode::DeleteName: {
                        Namespace& space = in.opcode == Opcode::DeleteName && f.locals ? *f.locals : *f.globals;
                        if (space.erase(nameAt(in.arg)) == 0)
                            raise("NameError", fmt::format("name '{}' is not defined", nameAt(in.arg)));
                        break;
                    }
                    case Opcode::LoadAttr: stack.back() = getAttr(stack.back(), nameAt(in.arg)); break;
                    case Opcode::LoadMethod:
                        stack.back() = getAttr(stack.back(), nameAt(in.arg));
                        stack.push_back(Value::null());
                        break;
                    case Opcode::StoreAttr: {
                        Value object = pop(stack);
                        setAttr(object, nameAt(in.arg), pop(stack));
                        break;
                    }
                    case Opcode::DeleteAttr: delAttr(pop(stack), nameAt(in.arg)); break;
                    case Opcode::BinarySubscr: {
                        Value key = pop(stack);
                        stack.back() = getItem(stack.back(), key);
                        break;
                    }
                    case Opcode::StoreSubscr: {
                        Value key = pop(stack);
                        Value container = pop(stack);
                        setItem(container, key, pop(stack));
                        break;
                    }
                    case Opcode::DeleteSubscr: {
                        Value key = pop(stack);
                        Value container = pop(stack);
                        deleteItem(container, key);
                        break;
                    }
                    case Opcode::BuildSlice: {
                        Value step = in.arg == 3 ? pop(stack) : Value();
                        Value stop = pop(stack);
                        Value start = pop(stack);
                        stack.push_back(Value(std::make_shared<SliceObject>(start, stop, step)));
                        break;
                    }
                    case Opcode::UnaryNegative:
                    case Opcode::UnaryPositive:
                    case Opcode::UnaryInvert: {
                        Value v = pop(stack);
                        if (in.opcode == Opcode::UnaryPositive && v.isNumber() && !v.is(Kind::Bool)) {
                            stack.push_back(v);
                        } else if (v.is(Kind::Tensor)) {
                            const char* op = in.opcode == Opcode::UnaryNegative   ? "Tensor.__neg__"
                                             : in.opcode == Opcode::UnaryPositive ? "Tensor.__pos__"
                                                                                  : "Tensor.__invert__";
                            stack.push_back(callOp(op, {v}));
                        } else if (in.opcode == Opcode::UnaryNegative && v.is(Kind::Float)) {
                            stack.push_back(Value(-v.asFloat()));
                        } else if (in.opcode == Opcode::UnaryNegative && v.isNumber()) {
                            stack.push_back(Value(-v.asInt()));
                        } else if (in.opcode == Opcode::UnaryInvert && (v.is(Kind::Int) || v.is(Kind::Bool))) {
                            stack.push_back(Value(~v.asInt()));
                        } else if (in.opcode == Opcode::UnaryPositive && v.is(Kind::Bool)) {
                            stack.push_back(Value(v.asInt()));
                        } else if (std::optional<Value> dunder = v.is(Kind::Instance) ? findAttr(v, in.opcode == Opcode::UnaryNegative   ? "__neg__"
                                                                                          : in.opcode == Opcode::UnaryPositive ? "__pos__"
                                                                                                                               : "__invert__")
                                                                                : std::nullopt) {
                            stack.push_back(call(*dunder, {}));
                        } else {
                            const char* symbol = in.opcode == Opcode::UnaryNegative ? "-" : in.opcode == Opcode::UnaryPositive ? "+" : "~";
                            typeError(fmt::format("bad operand type for unary {}: '{}'", symbol, classOf(v)->name));
                        }
                        break;
                    }
                    case Opcode::UnaryNot: stack.back() = Value(!truthy(stack.back())); break;
                    case Opcode::BinaryOp: {
                        Value b = pop(stack);
                        stack.back() = binaryOp(in.arg, stack.back(), b);
                        break;
                    }
                    case Opcode::CompareOp: {
                        Value b = pop(stack);
                        stack.back() = compare(in.arg, stack.back(), b);
                        break;
                    }
                    case Opcode::IsOp: {
                        Value b = pop(stack);
                        stack.back() = Value(stack.back().identical(b) != (in.arg == 1));
                        break;
                    }
                    case Opcode::ContainsOp: {
                        Value container = pop(stack);
                        stack.back() = Value(contains(container, stack.back()) != (in.arg == 1));
                        break;
                    }
                    case Opcode::JumpForward:
                    case Opcode::JumpBackward: f.pc = in.arg; continue;
                    case Opcode::PopJumpIfFalse:
                    case Opcode::PopJumpIfTrue: {
                        bool value = truthy(pop(stack));
                        if (value == (in.opcode == Opcode::PopJumpIfTrue)) {
                            f.pc = in.arg;
                            continue;
                        }
                        break;
                    }
                    case Opcode::PopJumpIfNone:
                    case Opcode::PopJumpIfNotNone: {
                        bool none = pop(stack).isNone();
                        if (none == (in.opcode == Opcode::PopJumpIfNone)) {
                            f.pc = in.arg;
                            continue;
                        }
                        break;
                    }
                    case Opcode::GetIter: stack.back() = iterate(stack.back()); break;
                    case Opcode::ForIter: {
                        std::optional<Value> next = stack.back().as<IteratorObject>().next();
                        if (!next) {
                            stack.pop_back();
                            f.pc = in.arg;
                            continue;
                        }
                        stack.push_back(std::move(*next));
                        break;
                    }
                    case Opcode::ReturnValue: return pop(stack);
                    case Opcode::YieldValue:
                        // Leaves the frame paused here; resumeGenerator pushes the sent value and steps past it.
                        f.suspended = true;
                        return pop(stack);
                    case Opcode::Send: {
                        Value sent = pop(stack);
                        std::optional<Value> yielded;
                        if (auto* generator = dynamic_cast<GeneratorObject*>(stack.back().is(Kind::Iterator) ? &stack.back().as<IteratorObject>() : nullptr)) {
                            yielded = resumeGenerator(*generator, sent, std::nullopt);
                            if (!yielded) {
                                stack.back() = generator->returnValue;
                                f.pc = in.arg;
                                continue;
                            }
                        } else if (!sent.isNone()) {
                            stack.push_back(call(getAttr(stack.back(), "send"), {sent}));
                            break;
                        } else if (!(yielded = stack.back().as<IteratorObject>().next())) {
                            stack.back() = Value();
                            f.pc = in.arg;
                            continue;
                        }
                        stack.push_back(std::move(*yielded));
                        break;
                    }
                    case Opcode::ReturnConst: return constants[in.arg];
                    case Opcode::BuildTuple:
                    case Opcode::BuildList:
                    case Opcode::BuildSet: {
                        ValueList items(std::make_move_iterator(stack.end() - in.arg), std::make_move_iterator(stack.end()));
                        stack.resize(stack.size() - in.arg);
                        if (in.opcode == Opcode::BuildTuple) {
                            stack.push_back(makeTuple(std::move(items)));
                        } else if (in.opcode == Opcode::BuildList) {
                            stack.push_back(makeList(std::move(items)));
                        } else {
                            auto set = std::make_shared<SetObject>();
                            for (const Value& item : items) set->add(item);
                            stack.push_back(Value(set));
                        }
                        break;
                    }
                    case Opcode::BuildMap: {
                        auto dict = std::make_shared<DictObject>();
                        size_t base = stack.size() - 2 * in.arg;
                        for (size_t i = base; i < stack.size(); i += 2) dict->set(stack[i], stack[i + 1]);
                        stack.resize(base);
                        stack.push_back(Value(dict));
                        break;
                    }
                    case Opcode::BuildString: {
                        std::string joined;
                        for (size_t i = stack.size() - in.arg; i < stack.size(); ++i) joined += stack[i].str();
                        stack.resize(stack.size() - in.arg);
                        stack.push_back(makeStr(std::move(joined)));
                        break;
                    }
                    case Opcode::ListAppend: {
                        Value v = pop(stack);
                        peek(stack, in.arg).as<ListObject>().items.push_back(std::move(v));
                        break;
                    }
                    case Opcode::SetAdd: {
                        Value v = pop(stack);
                        peek(stack, in.arg).as<SetObject>().add(v);
                        break;
                    }
                    case Opcode::MapAdd: {
                        Value v = pop(stack);
                        Value k = pop(stack);
                        peek(stack, in.arg).as<DictObject>().set(k, std::move(v));
                        break;
                    }
                    case Opcode::ListExtend:
                    case Opcode::SetUpdate: {
                        ValueList items = toList(pop(stack));
                        const Value& target = peek(stack, in.arg);
                        if (in.opcode == Opcode::ListExtend) {
                            auto& list = target.as<ListObject>().items;
                            list.insert(list.end(), items.begin(), items.end());
                        } else {
                            for (const Value& item : items) target.as<SetObject>().add(item);
                        }
                        break;
                    }
                    case Opcode::DictUpdate:
                    case Opcode::DictMerge: {
                        Value source = pop(stack);
                        updateDict(*this, peek(stack, in.arg).as<DictObject>(), source,
                                   in.opcode == Opcode::DictMerge ? DictSource::Keywords : DictSource::Mapping);
                        break;
                    }
                    case Opcode::ListToTuple: stack.back() = makeTuple(stack.back().as<ListObject>().items); break;
                    case Opcode::UnpackSequence:
                    case Opcode::UnpackEx: {
                        Value source = pop(stack);
                        ValueList items = source.is(Kind::List) || source.is(Kind::Tuple) ? sequenceItems(source) : toList(source);
                        uint32_t before = in.opcode == Opcode::UnpackEx ? in.arg & 0xFF : in.arg;
                        uint32_t after = in.opcode == Opcode::UnpackEx ? in.arg >> 8 : 0;
                        if (in.opcode == Opcode::UnpackSequence && items.size() > in.arg)
                            raise("ValueError", fmt::format("too many values to unpack (expected {})", in.arg));
                        if (items.size() < before + after)
                            raise("ValueError", fmt::format("not enough values to unpack (expected {}{}, got {})",
                                                            in.opcode == Opcode::UnpackEx ? "at least " : "",
                                                            before + after, items.size()));
                        for (size_t i = 0; i < after; ++i) stack.push_back(items[items.size() - 1 - i]);
                        if (in.opcode == Opcode::UnpackEx)
                            stack.push_back(makeList(ValueList(items.begin() + before, items.end() - after)));
                        for (size_t i = before; i-- > 0;) stack.push_back(items[i]);
                        break;
                    }
                    case Opcode::FormatValue: {
                        std::string spec = (in.arg & frontend::kFormatHasSpec) ? pop(stack).str() : std::string();
                        Value v = pop(stack);
                        uint32_t conversion = in.arg & frontend::kFormatConversionMask;
                        if (conversion == 1) v = makeStr(str(v));
                        if (conversion >= 2) v = makeStr(repr(v));
                        stack.push_back(makeStr(format(v, spec)));
                        break;
                    }
                    case Opcode::MakeFunction: stack.push_back(makeFunction(f, in.arg)); break;
                    case Opcode::LoadBuildClass:
                        stack.push_back(makeNative("__build_class__", [this](Interpreter&, CallArgs& a) { return buildClass(a); }));
                        break;
                    case Opcode::Call:
                    case Opcode::CallKw: {
                        Value names = in.opcode == Opcode::CallKw ? pop(stack) : Value();
                        size_t base = stack.size() - in.arg - 2;
                        CallArgs args;
                        size_t keywordCount = names.isNone() ? 0 : names.as<TupleObject>().items.size();
                        size_t positionalEnd = stack.size() - keywordCount;
                        if (!stack[base + 1].isNull()) args.positional.push_back(stack[base + 1]);
                        for (size_t i = base + 2; i < positionalEnd; ++i) args.positional.push_back(std::move(stack[i]));
                        for (size_t i = 0; i < keywordCount; ++i)
                            args.keywords.emplace_back(names.as<TupleObject>().items[i].str(), std::move(stack[positionalEnd + i]));
                        Value callable = std::move(stack[base]);
                        stack.resize(base);
                        stack.push_back(callArgs(callable, args));
                        break;
                    }
                    case Opcode::CallFunctionEx: {
                        Value kwargs = (in.arg & frontend::kCallExHasKeywords) ? pop(stack) : Value();
                        Value positional = pop(stack);
                        pop(stack);  // the NULL
                        Value callable = pop(stack);
                        CallArgs args;
                        args.positional = positional.is(Kind::Tuple) ? positional.as<TupleObject>().items : toList(positional);
                        if (kwargs.is(Kind::Dict))
                            for (auto& [key, value] : kwargs.as<DictObject>().entries()) args.keywords.emplace_back(key.str(), value);
                        stack.push_back(callArgs(callable, args));
                        break;
                    }
                    case Opcode::RaiseVarargs: {
                        Value cause = in.arg == 2 ? pop(stack) : Value();
                        if (in.arg == 0) {
                            if (handledException_.isNone()) raise("RuntimeError", "No active exception to reraise");
                            tlsReraising = true;
                            throw RaisedException(handledException_);
                        }
                        raiseValue(pop(stack), cause, in.arg == 2);
                    }
                    case Opcode::Reraise: {
                        Value exception = pop(stack);
                        tlsReraising = true;
                        throw RaisedException(exception);
                    }
                    case Opcode::PushExcInfo: {
                        Value exception = pop(stack);
                        stack.push_back(handledException_);
                        handledException_ = exception;
                        stack.push_back(std::move(exception));
                        break;
                    }
                    case Opcode::PopExcept: handledException_ = pop(stack); break;
                    case Opcode::CheckExcMatch: {
                        Value type = pop(stack);
                        ValueList types = type.is(Kind::Tuple) ? type.as<TupleObject>().items : ValueList{type};
                        bool matches = false;
                        for (const Value& t : types) {
                            if (!t.is(Kind::Class))
                                typeError("catching classes that do not inherit from BaseException is not allowed");
                            matches = matches || isInstance(stack.back(), t.as<ClassObject>());
                        }
                        stack.push_back(Value(matches));
                        break;
                    }
                    case Opcode::BeforeWith: {
                        Value manager = pop(stack);
                        auto exit = findAttr(manager, "__exit__");
                        auto enter = findAttr(manager, "__enter__");
                        if (!exit || !enter)
                            typeError(fmt::format("'{}' object does not support the context manager protocol",
                                                  classOf(manager)->name));
                        stack.push_back(*exit);
                        stack.push_back(call(*enter, {}));
                        break;
                    }
                    case Opcode::WithExceptStart: {
                        const Value& exception = stack.back();
                        stack.push_back(call(peek(stack, 3), {Value(classOf(exception)), exception, Value()}));
                        break;
                    }
                    case Opcode::LoadAssertionError: stack.push_back(builtins_.at("AssertionError")); break;
                    case Opcode::ImportName: {
                        Value fromList = pop(stack);
                        stack.push_back(importName(nameAt(in.arg), fromList));
                        break;
                    }
                    case Opcode::ImportFrom: {
                        auto attribute = findAttr(stack.back(), nameAt(in.arg));
                        if (!attribute)
                            raise("ImportError", fmt::format("cannot import name '{}' from '{}'", nameAt(in.arg),
                                                             stack.back().as<ModuleObject>().name));
                        stack.push_back(*attribute);
                        break;
                    }
                }
                ++f.pc;
            }
        } catch (...) {
            Value exception = exceptionFrom(std::current_exception());
            auto& instance = exception.as<InstanceObject>();
            // Raised while handling another one: Python chains it as __context__.
            if (!handledException_.isNone() && !handledException_.identical(exception) && !instance.attributes.contains("__context__"))
                instance.attributes["__context__"] = handledException_;
            if (!tlsReraising)
                instance.traceback.insert(instance.traceback.begin(),
                                          TracebackEntry{code.filename, code.lineTable.lineOf(f.pc), code.name});
            tlsReraising = false;
            const frontend::ExceptionTableEntry* handler = nullptr;
            for (const auto& entry : code.exceptionTable)
                if (entry.start <= f.pc && f.pc < entry.end) {
                    handler = &entry;
                    break;
                }
            if (!handler) throw RaisedException(exception);
            stack.resize(handler->depth);
            stack.push_back(exception);
            f.pc = handler->target;
        }
    }
}

void Interpreter::raiseValue(Value exception, const Value& cause, bool withCause) {
    if (exception.is(Kind::Class)) exception = call(exception, {});
    if (!exception.is(Kind::Instance) || !isInstance(exception, *builtinClass("BaseException")))
        typeError("exceptions must derive from BaseException");
    if (withCause) {  // `raise e from c` and `raise e from None` alike set __cause__ and suppress the context
        exception.as<InstanceObject>().attributes["__cause__"] = cause;
        exception.as<InstanceObject>().attributes["__suppress_context__"] = Value(true);
    }
    throw RaisedException(exception);
}

Value Interpreter::makeFunction(Frame& frame, uint32_t flags) {
    auto function = std::make_shared<FunctionObject>();
    function->code = pop(frame.stack).as<CodeRefObject>().code;
    function->globals = frame.globals;
    if (flags & frontend::kMakeFunctionClosure) {
        Value cells = pop(frame.stack);
        for (const Value& cell : cells.as<TupleObject>().items) function->closure.push_back(cell.ref<CellObject>());
    }
    if (flags & frontend::kMakeFunctionKeywordDefaults) {
        Value defaults = pop(frame.stack);
        for (auto& [key, value] : defaults.as<DictObject>().entries()) function->keywordDefaults.emplace_back(key.str(), value);
    }
    if (flags & frontend::kMakeFunctionDefaults) function->defaults = pop(frame.stack).as<TupleObject>().items;
    return Value(function);
}

Value Interpreter::loadPythonModule(const std::string& name, const char* source) {
    // Named like the CPython module it stands for, so tracebacks and graph-node stacks read naturally.
    std::string filename = name + ".py";
    auto file = std::make_shared<frontend::SourceFile>(filename, source);
    sources_[filename] = file;
    auto compiled = frontend::compileSource(*file);
    if (!compiled) throw std::runtime_error("polyfill " + name + ": " + compiled.error().render());
    auto globals = std::make_shared<Namespace>();
    (*globals)["__name__"] = makeStr(name);
    runModuleCode(*compiled, globals);
    auto module = std::make_shared<ModuleObject>(name);
    module->attributes = *globals;
    modules_[name] = Value(module);
    return modules_[name];
}

std::shared_ptr<Namespace> Interpreter::runDefinitions(const std::string& filename, const std::string& source) {
    auto file = std::make_shared<frontend::SourceFile>(filename, source);
    auto compiled = frontend::compileSource(*file);
    if (!compiled) return nullptr;
    auto globals = std::make_shared<Namespace>();
    (*globals)["__name__"] = makeStr(filename);
    runModuleCode(*compiled, globals);
    return globals;
}

bool Interpreter::importFromScriptDirectory(const std::string& name) {
    // As Python puts the script's directory first on sys.path, then PYTHONPATH's entries: NAME.py or the package
    // NAME/__init__.py in the first of them that has it; a dotted name is looked up inside its (imported first)
    // parent package's directory under each of them.
    namespace fs = std::filesystem;
    size_t dot = name.rfind('.');
    std::string packageDirectory;
    if (dot != std::string::npos) {
        importName(name.substr(0, dot), makeStr("*"));
        packageDirectory = name.substr(0, dot);
        std::replace(packageDirectory.begin(), packageDirectory.end(), '.', '/');
    }
    const std::string leaf = name.substr(dot == std::string::npos ? 0 : dot + 1);
    std::vector<fs::path> roots{scriptDirectory_.empty() ? fs::path(".") : scriptDirectory_};
    roots.insert(roots.end(), moduleSearchPath_.begin(), moduleSearchPath_.end());
    fs::path path;
    std::error_code error;
    for (const fs::path& root : roots) {
        const fs::path directory = packageDirectory.empty() ? root : root / packageDirectory;
        if (fs::is_regular_file(directory / (leaf + ".py"), error)) path = directory / (leaf + ".py");
        else if (fs::is_regular_file(directory / leaf / "__init__.py", error)) path = directory / leaf / "__init__.py";
        if (!path.empty()) break;
    }
    if (path.empty()) return false;
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string filename = path.lexically_normal().string();
    auto file = std::make_shared<frontend::SourceFile>(filename, text.str());
    sources_[filename] = file;
    auto compiled = frontend::compileSource(*file);
    if (!compiled) raise("SyntaxError", compiled.error().render());
    auto globals = std::make_shared<Namespace>();
    (*globals)["__name__"] = makeStr(name);
    (*globals)["__file__"] = makeStr(filename);
    runModuleCode(*compiled, globals);
    auto module = std::make_shared<ModuleObject>(name);
    module->attributes = *globals;
    modules_[name] = Value(module);
    if (dot != std::string::npos)
        if (auto parent = modules_.find(name.substr(0, dot)); parent != modules_.end() && parent->second.is(Kind::Module))
            parent->second.as<ModuleObject>().attributes[leaf] = modules_[name];
    return true;
}

Value Interpreter::importName(const std::string& name, const Value& fromList) {
    auto it = modules_.find(name);
    if (it == modules_.end())
        if (const char* source = polyfillSource(name)) {
            // A submodule (collections.abc) is imported after its package and becomes its attribute.
            size_t dot = name.rfind('.');
            if (dot != std::string::npos) importName(name.substr(0, dot), makeStr("*"));
            Value module = loadPythonModule(name, source);
            if (dot != std::string::npos)
                if (auto parent = modules_.find(name.substr(0, dot)); parent != modules_.end() && parent->second.is(Kind::Module))
                    parent->second.as<ModuleObject>().attributes[name.substr(dot + 1)] = module;
            it = modules_.find(name);
        }
    if (it == modules_.end() && importFromScriptDirectory(name)) it = modules_.find(name);
    if (it == modules_.end()) raise("ModuleNotFoundError", fmt::format("No module named '{}'", name));
    if (!fromList.isNone()) return it->second;
    return modules_.at(name.substr(0, name.find('.')));
}

/// `class P(typing.NamedTuple)`: a namedtuple class of the annotated fields (defaults from the body), with the
/// body's methods.
std::shared_ptr<ClassObject> Interpreter::namedTupleFromClass(const ClassObject& body) {
    std::vector<std::string> fields;
    ValueList defaults;
    if (auto annotations = body.dict.find("__annotations__"); annotations != body.dict.end() && annotations->second.is(Kind::Dict))
        for (const auto& [key, annotation] : annotations->second.as<DictObject>().entries()) {
            fields.push_back(key.str());
            auto value = body.dict.find(key.str());
            if (value != body.dict.end()) defaults.push_back(value->second);
            else if (!defaults.empty())
                typeError(fmt::format("Non-default namedtuple field {} cannot follow default field", key.str()));
        }
    auto cls = makeNamedTupleClass(*this, body.name, fields, defaults, body.module).ref<ClassObject>();
    for (const auto& [name, value] : body.dict)
        if (std::find(fields.begin(), fields.end(), name) == fields.end()) cls->dict[name] = value;
    return cls;
}

Value Interpreter::buildClass(CallArgs& args) {
    if (args.positional.size() < 2) typeError("__build_class__: not enough arguments");
    auto& body = args.positional[0].as<FunctionObject>();
    std::vector<std::shared_ptr<ClassObject>> bases;
    for (size_t i = 2; i < args.positional.size(); ++i) {
        if (!args.positional[i].is(Kind::Class)) typeError("bases must be types");
        bases.push_back(args.positional[i].ref<ClassObject>());
    }
    if (bases.empty()) bases.push_back(builtinClass("object"));
    const bool namedTuple = bases.size() == 1 && bases[0]->name == "NamedTuple" && bases[0]->module == "typing";
    auto cls = std::make_shared<ClassObject>(args.positional[1].str(), std::move(bases));
    auto moduleName = body.globals->find("__name__");
    cls->module = moduleName != body.globals->end() && moduleName->second.is(Kind::Str) ? moduleName->second.str() : "__main__";
    Frame frame;
    frame.code = body.code;
    frame.globals = body.globals;
    frame.locals = &cls->dict;
    frame.localsOrder = &cls->definitionOrder;
    frame.fast.assign(body.code->varNames.size(), Value::null());
    for (size_t i = 0; i < body.code->cellVars.size(); ++i) frame.cells.push_back(std::make_shared<CellObject>());
    for (const auto& cell : body.closure) frame.cells.push_back(cell);
    Value result = runFrame(frame);
    cls->dict.erase("__classcell__");
    // A class that defines __eq__ but not __hash__ gets __hash__ = None: its instances are unhashable, as in Python.
    if (cls->dict.contains("__eq__") && !cls->dict.contains("__hash__")) cls->dict["__hash__"] = Value();
    if (namedTuple) cls = namedTupleFromClass(*cls);
    if (result.is(Kind::Cell)) result.as<CellObject>().value = Value(cls);
    finishClass(*this, cls);
    applyMetaclass(*this, cls, args.take("metaclass"));
    return Value(cls);
}

}  // namespace eng::vm
