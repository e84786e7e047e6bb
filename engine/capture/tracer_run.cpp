// Running a trace: the root frame's instruction loop, restarts at graph breaks, and what a finished trace
// hands to the engine (graph outputs plus the recipes that rebuild the frame's return value or its state).
#include <fmt/core.h>

#include <algorithm>
#include <new>
#include <set>

#include "capture/symbolic_eval.h"
#include "capture/tracer.h"
#include "tensor/autocast.h"
#include "tensor/error.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::capture {
bool noCheckpoint(const TraceFrame& root, const fx::Graph& graph);  // a break Dynamo cannot resume from (below)

TraceResult Tracer::trace(const vm::Frame& frame) {
    // Tracing a with-block flips grad mode for its example ops; the caller's mode comes back however it ends.
    struct GradModeRestore {
        vm::Interpreter& vm;
        bool enabled = tensor::autograd::isGradEnabled();
        ~GradModeRestore() {
            tensor::autograd::setGradEnabled(enabled);
            vm.setGradEnabled(enabled);
        }
    } restoreGradMode{vm_};
    // So does autocast's state, which a traced `with torch.autocast(...)` sets for the body's example ops.
    const tensor::AutocastStatesRestore restoreAutocast;
    // Sets from outside the frame that the trace changed (callOutsideSetMutator) get their contents back.
    struct SetContentsRestore { Tracer& tracer; ~SetContentsRestore() { tracer.restoreChangedSets(); } } restoreSets{*this};
    // A user __eq__/__hash__ that dict and set operations on trace-time values would run breaks the graph instead.
    const std::unique_ptr<vm::InstanceProtocol> traceTimeProtocol = traceTimeInstanceProtocol(*this);
    const vm::InstanceProtocolScope noUntracedUserCode(traceTimeProtocol.get());
    graph_ = std::make_unique<Graph>();
    TraceFrame root;
    root.code = frame.code;
    root.globals = frame.globals;
    root.pc = frame.pc;
    const auto& names = frame.code->varNames;
    root.locals.resize(names.size());
    for (size_t i = 0; i < names.size(); ++i)
        if (!frame.fast[i].isNull()) root.locals[i] = wrapSource(frame.fast[i], Source::local(names[i], static_cast<int64_t>(i)));
    // Values on the stack of a resumed frame are the resume function's ___stack0, ___stack1, ... arguments.
    for (size_t i = 0; i < frame.stack.size(); ++i) {
        const vm::Value& v = frame.stack[i];
        if (v.isNull()) {
            root.stack.push_back(null());
            continue;
        }
        root.stack.push_back(wrapSource(v, Source::local("___stack" + std::to_string(i), static_cast<int64_t>(names.size() + i))));
    }
    root.cells = frame.cells;
    // Cell contents (closure variables) are read through the slots after the stack values.
    size_t cellSlot = names.size() + frame.stack.size();
    for (size_t i = 0; i < frame.cells.size(); ++i) {
        auto cell = std::make_shared<TracedCell>();
        cell->local = i < frame.code->cellVars.size();
        if (frame.cells[i]->value && !frame.cells[i]->value->isNull())
            cell->value = wrapSource(*frame.cells[i]->value,
                                     Source::local(frame.code->derefName(static_cast<uint32_t>(i)), static_cast<int64_t>(cellSlot + i)));
        root.cellValues[i] = cell;
    }
    TraceResult result;
    root_ = &root;
    runRoot(root, result);
    root_ = nullptr;
    result.inputs = inputs_;
    guardNoTensorAliasing();
    result.guards = guards_;
    result.graph = std::move(graph_);
    return result;
}

void Tracer::step(TraceFrame& frame) {
    TraceFrame* saved = current_;
    current_ = &frame;
    std::optional<TracedRaise> observed;
    // An error of an operation on tensors or symbolic ints may hold for this call's values only (an index past a
    // dynamic size): it keeps breaking, so no later call takes the handler without the check. One on constants
    // is the same for every call these guards admit.
    bool tracedOperands = false;
    if (frame.pc < frame.code->instructions.size()) {
        const frontend::Instruction& in = frame.code->instructions[frame.pc];
        const size_t pops = std::min(frame.stack.size(), static_cast<size_t>(std::max(0, frontend::stackPops(in.opcode, in.arg))));
        for (size_t i = frame.stack.size() - pops; i < frame.stack.size(); ++i)
            tracedOperands = tracedOperands || (frame.stack[i] && (containsTensor(frame.stack[i]) || frame.stack[i]->kind == Variable::Kind::SymScalar));
    }
    try {
        try {
            evaluateInstruction(*this, frame);
        } catch (const vm::VmError&) {
            if (!tracedOperands) observed = observedException(frame);
            if (!observed) throw;
        } catch (const vm::RaisedException&) {
            if (!tracedOperands) observed = observedException(frame);
            if (!observed) throw;
        }
        if (observed) throw *observed;
    } catch (TracedRaise& raised) {
        // A traced `raise` here or in a callee: this frame's handler takes it, else it unwinds to the caller.
        current_ = saved;
        if (!catchRaise(frame, raised.exception)) throw;
        return;
    } catch (...) {
        current_ = saved;
        throw;
    }
    current_ = saved;
}

std::optional<TracedRaise> Tracer::observedException(TraceFrame& frame) {
    // Called inside the handler of the interpreter's error. Python errors of operations on trace-time values
    // (KeyError of a dict, IndexError of a list, StopIteration of next(), ValueError of list.index/remove,
    // ZeroDivisionError) are Dynamo's observed exceptions: raised in the trace, so the frame's own except
    // clauses take them. Other errors (TypeError, AttributeError, ...) may stand for what the trace cannot model,
    // so they keep breaking the graph.
    static const std::set<std::string> observedClasses = {"KeyError", "IndexError", "StopIteration", "ValueError", "ZeroDivisionError"};
    std::string className;
    std::vector<VarRef> args;
    std::string text;
    try {
        throw;
    } catch (const vm::VmError& error) {
        className = error.pythonClass();
        text = error.what();
        if (!text.empty()) args.push_back(constant(vm::makeStr(text)));
    } catch (const vm::RaisedException& raised) {
        const vm::Value& instance = raised.exception();
        if (!instance.is(vm::Kind::Instance)) return std::nullopt;
        const auto& cls = *instance.as<vm::InstanceObject>().cls;
        if (!vm_.builtinClass(cls.name) || vm_.builtinClass(cls.name).get() != &cls) return std::nullopt;  // a user subclass
        className = cls.name;
        std::optional<vm::Value> arguments = vm_.findAttr(instance, "args");
        if (!arguments || !arguments->is(vm::Kind::Tuple)) return std::nullopt;
        for (const vm::Value& a : arguments->as<vm::TupleObject>().items) {
            if (!a.isNone() && !a.is(vm::Kind::Str) && !a.is(vm::Kind::Int) && !a.is(vm::Kind::Float) && !a.is(vm::Kind::Bool)) return std::nullopt;
            args.push_back(constant(a));
        }
        text = raised.what();
    } catch (...) {
        return std::nullopt;
    }
    if (!observedClasses.contains(className)) return std::nullopt;
    auto cls = vm_.builtinClass(className);
    if (!cls) return std::nullopt;
    VarRef exception = constructException(*this, frame, constant(vm::Value(cls)), std::move(args), {});
    chainContext(exception);
    return TracedRaise{exception, true, text};
}

void Tracer::runRoot(TraceFrame& root, TraceResult& result) {
    for (;;) {
        if (auto it = options_.breakBefore.find(root.pc); it != options_.breakBefore.end()) {
            current_ = &root;
            if (std::optional<uint32_t> made = escapingClosure(root, &result, nullptr)) return breakAtClosure(result, root, *made);
            finishWithBreak(result, root, it->second);
            if (generatorEscaped_) failOnEscapedGenerator(root, result, &it->second);
            else if (!unreconstructable_.empty()) failOnUnreconstructable(root, result, it->second);
            return;
        }
        noteCheckpoint(root);
        try {
            try {
                step(root);
            } catch (TracedRaise& raised) {
                // An error of an operation no traced handler takes: the instruction runs in the interpreter, as before.
                if (raised.observed) {
                    breakOnError(root, result, raised.errorText);
                    return;
                }
                // No traced handler catches it: it leaves the compiled frame, raised by the interpreter for real.
                unsupported("Observed exception",
                            "Dynamo found no exception handler at the top-level compiled function when encountering an exception. "
                            "Exception will propagate outside the compiled region.",
                            {"Dynamo has detected that tracing the code will result in an error when running in eager. Please double "
                             "check that your code doesn't contain a similar error when actually running eagerly/intentionally."},
                            "raised exception " + vm_.classOf(raised.exception->value)->name);
            }
        } catch (Unsupported& u) {
            result.graphBreak = u.info;
            result.restartAt = root.pc;
            // An instruction Dynamo has no break path for, with nothing in the graph yet: the frame runs eagerly (an
            // error the instruction raised, breakOnError below, keeps its break).
            if (noCheckpoint(root, *graph_)) result.graphBreak->skipFrame = true;
            placeBreak(root, *result.graphBreak, result);
            return;
        } catch (vm::VmError& error) {
            // Errors Dynamo raises to the user (UserError: guarding on data-dependent values) end the compile.
            if (error.pythonClass() == "UserError") throw;
            breakOnError(root, result, error.what());
            return;
        } catch (const std::bad_alloc&) {
            // Running out of memory is no property of the instruction: it ends the program with MemoryError
            // wherever the allocation that failed happened to be, instead of a break that depends on it.
            throw;
        } catch (const tensor::AllocationError&) {
            throw std::bad_alloc();  // an example value's allocation failed: the same, under the memory cap
        } catch (std::exception& error) {
            breakOnError(root, result, error.what());
            return;
        }
        if (root.returned) {
            current_ = &root;
            if (std::optional<uint32_t> made = escapingClosure(root, nullptr, &*root.returned)) return breakAtClosure(result, root, *made);
            finishWithReturn(result, *root.returned);
            if (generatorEscaped_) failOnEscapedGenerator(root, result, nullptr);
            return;
        }
    }
}

/// collections.deque's polyfill class (symbolic_eval_objects.cpp), which Dynamo models as the builtin DequeVariable.
bool isDequePolyfill(const vm::Value& v);

bool noResumePoint(const TraceFrame& root) {
    // Inside the block of a context manager the trace entered, its __exit__ lives only in the trace: Dynamo fails
    // the frame ("Graph break under GenericContextWrappingVariable").
    for (const VarRef& v : root.stack)
        if (v->contextExit) return true;
    // Inside a try block Dynamo 3.11+ compiles no partial graph either (should_compile_partial_graph).
    return insideTryBlock(root);
}

bool noCheckpoint(const TraceFrame& root, const fx::Graph& graph) {
    // Dynamo resumes after calls; elsewhere (BINARY_OP, ...) from its last checkpoint, none while the graph has no op.
    static const std::set<frontend::Opcode> kNoBreakPath = {frontend::Opcode::BinaryOp, frontend::Opcode::BinarySubscr, frontend::Opcode::FormatValue, frontend::Opcode::BuildString, frontend::Opcode::CompareOp};
    return kNoBreakPath.contains(root.code->instructions[root.pc].opcode) &&
           std::none_of(graph.nodes().begin(), graph.nodes().end(), [](const auto& n) { return n->op == NodeOp::CallFunction || n->op == NodeOp::CallMethod; });
}

bool insideLoop(const TraceFrame& root) {
    const auto& instructions = root.code->instructions;
    for (size_t i = root.pc; i < instructions.size(); ++i)
        if (frontend::hasJump(instructions[i].opcode) && instructions[i].arg < root.pc) return true;
    return false;
}

void Tracer::skipForLoop(const TraceFrame& root, GraphBreakInfo& info) {
    // Dynamo resumes no frame inside a for/while loop: the whole frame runs eagerly from now on, and the log names
    // this second break after the first (gb7000); the counters keep the first.
    info.skipFrame = true;
    info.skipNote = fmt::format(
        "\n\n*** While handling this graph break, another graph break occurred: ***\n\n"
        "graph break in loop\n"
        "  Explanation: torch.compile detected a graph break in a for/while loop. Skipping the frame and falling back to eager, as "
        "graph breaks in loops are not supported.\n"
        "  Hint: This graph break may have been caused by an earlier graph break. Resolving the earlier graph break may resolve this "
        "one.\n\n"
        "  Developer debug context: frame skipped: {} ({} line {})\n\n"
        " For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb7000.html",
        options_.functionName, root.code->filename, root.code->firstLine);
}

void Tracer::failOnEscapedGenerator(TraceFrame& root, TraceResult& result, const GraphBreakInfo* atBreak) {
    // A generator made in the trace would leave it (returned, or alive at a graph break): its paused frame exists
    // only in the trace, so the frame runs eagerly (Dynamo's "Failed to handle graph break gracefully").
    current_ = &root;
    GraphBreakInfo info;
    try {
        unsupported("Unsupported generator",
                    "Dynamo cannot reconstruct a generator created in the compiled frame once it leaves the frame (as a "
                    "return value or across a graph break).",
                    {"Consume the generator inside the compiled function (list(gen), a for loop), or create it outside."},
                    atBreak ? "LocalGeneratorObjectVariable alive at a graph break" : "LocalGeneratorObjectVariable returned");
    } catch (Unsupported& u) {
        info = u.info;
    }
    if (atBreak && !atBreak->reason.empty()) info = *atBreak;  // the break that met it is what the log names
    info.skipFrame = true;
    result = TraceResult{};
    result.graphBreak = info;
    result.restartAt = root.pc;
}

void Tracer::breakOnError(TraceFrame& root, TraceResult& result, const std::string& what) {
    current_ = &root;
    GraphBreakInfo info;
    info.breakType = "Unsupported bytecode";
    info.reason = fmt::format("Unsupported bytecode\n  Explanation: Dynamo could not trace the instruction at {}:{} ({}): {}\n"
                              "  Hint: Please report an issue to PyTorch.\n",
                              root.code->filename, root.code->lineTable.lineOf(root.pc),
                              frontend::opcodeInfo(root.code->instructions[root.pc].opcode).name, what);
    info.file = root.code->filename;
    info.line = root.code->lineTable.lineOf(root.pc);
    info.function = options_.functionName;
    info.code = sourceLineOf(root);
    info.userStack.push_back(traces::Frame{info.file, info.line, info.function, info.code});
    result.graphBreak = info;
    result.restartAt = root.pc;
    placeBreak(root, *result.graphBreak, result);
}

Rebuild Tracer::rebuildOf(const VarRef& v, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex) {
    Rebuild r;
    auto asOutput = [&](Node* node) {
        auto [it, isNew] = outputIndex.try_emplace(node, outputs.size());
        if (isNew) outputs.push_back(Arg::ofNode(node));
        r.kind = Rebuild::Kind::GraphOutput;
        r.index = it->second;
    };
    // A value the graph did not make: read again from where it came from, else kept as the constant it was.
    auto fromSourceOrConstant = [&] {
        if (v->source) {
            r.kind = Rebuild::Kind::FromSource;
            r.source = v->source;
        } else {
            r.kind = Rebuild::Kind::Constant;
            r.constant = v->value;
            // A set, dict or list the trace made as a constant: every call gets its own object.
            if (v->fresh && (v->value.is(vm::Kind::Set) || v->value.is(vm::Kind::Dict) || v->value.is(vm::Kind::List)))
                r.kind = Rebuild::Kind::CopyOfConstant;
        }
    };
    switch (v->kind) {
        case Variable::Kind::Tensor:
        case Variable::Kind::SymScalar:
            if (v->node && v->node->op == NodeOp::GetAttr) {
                // A captured constant: the real tensor the graph reads (the variable holds the trace's copy).
                r.kind = Rebuild::Kind::Constant;
                r.constant = v->node->callee;
            } else if (auto size = v->node ? symbolSizes_.find(v->node) : symbolSizes_.end(); size != symbolSizes_.end()) {
                // A symbolic size (s0): read again from its tensor, so resumed code sees this call's value.
                r.kind = Rebuild::Kind::TensorSize;
                r.source = size->second.source;
                r.index = static_cast<size_t>(size->second.dimension);
            } else if (v->node && v->node->op != NodeOp::Placeholder) {
                asOutput(v->node);
            } else if (Arg input = v->kind == Variable::Kind::SymScalar ? argOf(v) : Arg(); input.kind == Arg::Kind::NodeRef) {
                // A symbolic int input: Dynamo rebuilds a SymNodeVariable from the graph's outputs (no existing value
                // it would reload from its source), so the graph is compiled for it even without ops.
                asOutput(input.node);
            } else {
                fromSourceOrConstant();
            }
            return r;
        case Variable::Kind::List:
        case Variable::Kind::Tuple:
            if (isDictView(*v)) {
                // A view of a dict: the rebuilt (or the real outside) dict's own view, live as in Python.
                r.kind = Rebuild::Kind::DictView;
                r.name = v->name;
                r.items.push_back(rebuildOf(v->self, outputs, outputIndex));
                return r;
            }
            if (v->node) {
                // A tuple result of one op (x.max(dim=...)): its items come back through getitem nodes.
                const auto& items = v->value.is(vm::Kind::List) ? v->value.as<vm::ListObject>().items : v->value.as<vm::TupleObject>().items;
                r.kind = v->kind == Variable::Kind::List ? Rebuild::Kind::List : Rebuild::Kind::Tuple;
                for (size_t i = 0; i < items.size(); ++i) r.items.push_back(rebuildOf(getItem(v, constant(vm::Value(static_cast<int64_t>(i)))), outputs, outputIndex));
                if (v->value.is(vm::Kind::Tuple)) r.constant = v->value;
                return r;
            }
            if (v->source && !v->fresh) {
                r.kind = Rebuild::Kind::FromSource;
                r.source = v->source;
                return r;
            }
            r.kind = v->kind == Variable::Kind::List ? Rebuild::Kind::List : Rebuild::Kind::Tuple;
            if (v->kind == Variable::Kind::List) r.index = aliasIds_.try_emplace(v.get(), aliasIds_.size() + 1).first->second;
            for (const VarRef& item : v->items) r.items.push_back(rebuildOf(item, outputs, outputIndex));
            if (v->value.is(vm::Kind::Tuple)) r.constant = v->value;
            return r;
        case Variable::Kind::Dict:
            r.kind = Rebuild::Kind::Dict;
            r.index = aliasIds_.try_emplace(v.get(), aliasIds_.size() + 1).first->second;
            r.constant = v->value;  // a dict subclass's template: its class and default factory
            r.keys = v->keys;
            for (const VarRef& item : v->items) r.items.push_back(rebuildOf(item, outputs, outputIndex));
            return r;
        case Variable::Kind::Set:
            // A new set per call, one however many places hold it.
            r.kind = Rebuild::Kind::Set;
            r.name = v->name;  // "frozenset" for a frozen one
            r.index = aliasIds_.try_emplace(v.get(), aliasIds_.size() + 1).first->second;
            for (const VarRef& item : v->items) r.items.push_back(rebuildOf(item, outputs, outputIndex));
            return r;
        case Variable::Kind::Null: r.kind = Rebuild::Kind::Null; return r;
        case Variable::Kind::Cell:
            r.kind = Rebuild::Kind::Cell;
            r.index = v->position;
            return r;
        case Variable::Kind::BoundMethod:
            // A user method of an object the trace made has no source to load it from: Dynamo's UserMethodVariable
            // cannot be reconstructed (runRoot fails the frame).
            // (collections.deque, a polyfill here, is Dynamo's DequeVariable, whose methods rebuild as attribute reads.)
            if (!v->self->source && (v->self->fresh || v->self->kind == Variable::Kind::Object) && !isDequePolyfill(v->self->value) &&
                unreconstructable_.empty())
                unreconstructable_ = fmt::format("UserMethodVariable({}, {})", vm_.repr(v->value), variableRepr(*this, *v->self));
            [[fallthrough]];
        case Variable::Kind::TensorMethod:
        case Variable::Kind::ContainerMethod:
            r.kind = Rebuild::Kind::TensorMethod;
            r.name = v->name;
            r.items.push_back(rebuildOf(v->self, outputs, outputIndex));
            return r;
        case Variable::Kind::Iterator:
            if (holdsGenerator(*v)) {
                generatorEscaped_ = true;  // runRoot fails the frame: nothing can rebuild a generator's paused frame
                return r;
            }
            r.kind = Rebuild::Kind::Iterator;
            for (size_t i = v->position; i < v->items.size(); ++i) r.items.push_back(rebuildOf(v->items[i], outputs, outputIndex));
            if (!v->lazySources.empty()) {
                // A lazy map/filter (its items are made on demand, so none is pending): map(f, *rest) / filter(f, rest).
                r.name = v->name;
                r.items.push_back(rebuildOf(v->self, outputs, outputIndex));
                for (const VarRef& source : v->lazySources) r.items.push_back(rebuildOf(source, outputs, outputIndex));
            }
            return r;
        case Variable::Kind::Slice:
            r.kind = Rebuild::Kind::Constant;
            r.constant = exampleOf(v);
            return r;
        case Variable::Kind::Python:
            if (v->value.is(vm::Kind::Function) && madeAt_.contains(&v->value.as<vm::FunctionObject>()))
                if (std::optional<std::vector<size_t>> cells = rootCellsOf(v->value.as<vm::FunctionObject>())) {
                    // A closure the trace made over the frame's cells: a new function per call, over this call's cells.
                    r.kind = Rebuild::Kind::Function;
                    r.index = aliasIds_.try_emplace(v.get(), aliasIds_.size() + 1).first->second;
                    r.constant = v->value;
                    for (size_t cell : *cells) {
                        Rebuild c;
                        c.kind = Rebuild::Kind::Cell;
                        c.index = cell;
                        r.items.push_back(std::move(c));
                    }
                    return r;
                }
            fromSourceOrConstant();
            return r;
        case Variable::Kind::Object:
            // A new instance per call, one however many places hold it, with the attributes the trace gave it.
            r.kind = Rebuild::Kind::Object;
            r.index = aliasIds_.try_emplace(v.get(), aliasIds_.size() + 1).first->second;
            r.constant = vm::Value(v->value.as<vm::InstanceObject>().cls);
            r.keys = v->keys;
            for (const VarRef& item : v->items) r.items.push_back(rebuildOf(item, outputs, outputIndex));
            return r;
        case Variable::Kind::Super:
            r.kind = Rebuild::Kind::Super;
            r.constant = v->value;
            r.items.push_back(rebuildOf(v->self, outputs, outputIndex));
            return r;
    }
    return r;
}

void Tracer::finishWithReturn(TraceResult& result, const VarRef& value) {
    std::vector<Arg> outputs;
    std::map<const Node*, size_t> index;
    result.returned = true;
    result.returnValue = rebuildOf(value, outputs, index);
    recordCells(result, *root_, outputs, index);
    recordSideEffects(result, outputs, index);
    graph_->setOutput(std::move(outputs));
}

void Tracer::finishWithBreak(TraceResult& result, TraceFrame& root, const GraphBreakInfo& info) {
    std::vector<Arg> outputs;
    std::map<const Node*, size_t> index;
    result.graphBreak = info;
    result.breakPc = root.pc;
    // Dynamo's order: the stack first, then the live locals.
    for (const VarRef& v : root.stack) result.stack.push_back(rebuildOf(v, outputs, index));
    std::vector<bool> live = liveLocalsAt(*root.code, root.pc);
    for (size_t i = 0; i < root.locals.size(); ++i) {
        if (!live[i] || !root.locals[i]) continue;
        // Dynamo restores a live local that holds another slot's value (a resume frame's `total = ___stack0`) from
        // its variable, which realizes it: a scalar read from the frame gets its guard (`___stack0 == 15.0`) even
        // when the trace did not use it. One still in its own slot is left as the frame has it.
        const VarRef& v = root.locals[i];
        if (v->kind == Variable::Kind::Python && v->source && v->source->kind == Source::Kind::Local &&
            i < root.code->varNames.size() && v->source->name != root.code->varNames[i] && (v->value.isNumber() || v->value.is(vm::Kind::Str)))
            guardValue(v);
        result.locals.emplace_back(static_cast<uint32_t>(i), rebuildOf(v, outputs, index));
    }
    recordCells(result, root, outputs, index);
    recordSideEffects(result, outputs, index);
    graph_->setOutput(std::move(outputs));
}

void Tracer::recordCells(TraceResult& result, TraceFrame& root, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex) {
    // The frame's own cells hold what the trace stored in them (closure variables assigned before a break or the
    // return); a closure that leaves the frame reads them.
    for (const auto& [i, cell] : root.cellValues)
        if (cell->local && cell->value) result.cells.emplace_back(static_cast<uint32_t>(i), rebuildOf(cell->value, outputs, outputIndex));
}

TraceFrame* Tracer::rootFrame() const { return root_; }

bool Tracer::madeClosureIn(const std::vector<VarRef>& values) const {
    for (const VarRef& v : values) {
        if (!v) continue;
        if (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Function) && madeAt_.contains(&v->value.as<vm::FunctionObject>()))
            return true;
        if (madeClosureIn(v->items)) return true;
    }
    return false;
}

std::optional<uint32_t> Tracer::escapingClosure(const TraceFrame& root, const TraceResult* breakState, const VarRef* returned) {
    std::optional<uint32_t> found;
    auto visit = [&](auto& self, const VarRef& v) -> void {
        if (!v) return;
        if (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Function)) {
            // A closure over the frame's own cells only is rebuilt over them (Dynamo reconstructs it); one over an
            // inlined call's cells cannot be.
            auto it = madeAt_.find(&v->value.as<vm::FunctionObject>());
            if (it != madeAt_.end() && !rootCellsOf(v->value.as<vm::FunctionObject>()) && (!found || it->second < *found)) {
                found = it->second;
                escapedModule_ = false;
            }
        }
        if (v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Instance)) {
            auto it = madeModules_.find(v->value.object().get());
            if (it != madeModules_.end() && (!found || it->second < *found)) {
                found = it->second;
                escapedModule_ = true;
            }
        }
        for (const VarRef& item : v->items) self(self, item);
        if (v->self) self(self, v->self);
    };
    if (returned) visit(visit, *returned);
    if (breakState) {
        for (const VarRef& v : root.stack) visit(visit, v);
        std::vector<bool> live = liveLocalsAt(*root.code, root.pc);
        for (size_t i = 0; i < root.locals.size(); ++i)
            if (live[i]) visit(visit, root.locals[i]);
        for (const auto& [i, cell] : root.cellValues) visit(visit, cell->value);
    }
    for (const PendingEffect& e : effects_) visit(visit, e.value);
    return found;
}

std::optional<std::vector<size_t>> Tracer::rootCellsOf(const vm::FunctionObject& function) const {
    if (!root_) return std::nullopt;
    std::vector<size_t> indexes;
    for (const auto& cell : function.closure) {
        auto it = std::find(root_->cells.begin(), root_->cells.end(), cell);
        if (it == root_->cells.end()) return std::nullopt;
        indexes.push_back(static_cast<size_t>(it - root_->cells.begin()));
    }
    return indexes;
}

void Tracer::breakAtClosure(TraceResult& result, TraceFrame& root, uint32_t pc) {
    root.pc = pc;
    current_ = &root;
    try {
        if (escapedModule_)
            unsupported("Unsupported nn.Module construction",
                        "Dynamo does not reconstruct an nn.Module created in the compiled frame when it leaves the frame (returned, "
                        "stored outside, or live across a graph break).",
                        {"Create the module outside the compiled region."}, "call_function UnspecializedNNModuleVariable");
        unsupported("Unsupported nested function",
                    "Dynamo does not reconstruct a function with a closure created in the compiled frame when it leaves the "
                    "frame (returned, stored outside, or live across a graph break).",
                    {"Call the nested function inside the compiled region only, or define it outside."}, "MAKE_FUNCTION with closure");
    } catch (Unsupported& u) {
        result.graphBreak = u.info;
        result.restartAt = pc;
    }
}

void Tracer::unsupported(const std::string& breakType, const std::string& explanation, const std::vector<std::string>& hints,
                         const std::string& context, int gbNumber) {
    GraphBreakInfo info;
    info.breakType = breakType;
    std::string text = breakType + "\n  Explanation: " + explanation + "\n";
    for (const std::string& hint : hints) text += "  Hint: " + hint + "\n";
    text += "\n  Developer debug context: " + context + "\n";
    if (gbNumber > 0)
        text += fmt::format("\n For more details about this graph break, please visit: "
                            "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb{:04d}.html",
                            gbNumber);
    info.reason = text;
    // The user frames, outermost first: the root's line is where the graph breaks.
    std::vector<const TraceFrame*> frames;
    for (const TraceFrame* f = current_; f; f = f->parent) frames.insert(frames.begin(), f);
    for (const TraceFrame* f : frames) {
        traces::Frame frame;
        frame.file = f->code->filename;
        frame.line = f->code->lineTable.lineOf(f->pc);
        frame.function = f->parent ? f->code->name : options_.functionName;
        frame.source = sourceLineOf(*f);
        info.userStack.push_back(frame);
    }
    if (!frames.empty()) {
        info.file = info.userStack.back().file;
        info.line = info.userStack.back().line;
        info.function = info.userStack.back().function;
        info.code = info.userStack.back().source;
    }
    throw Unsupported{info};
}

}  // namespace eng::capture
