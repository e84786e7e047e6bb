// Running a trace: the root frame's instruction loop, restarts at graph breaks, and what a finished trace
// hands to the engine (graph outputs plus the recipes that rebuild the frame's return value or its state).
#include <fmt/core.h>

#include "capture/symbolic_eval.h"
#include "capture/tracer.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::capture {

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
    for (size_t i = 0; i < frame.cells.size(); ++i)
        if (frame.cells[i]->value && !frame.cells[i]->value->isNull())
            root.cellValues[i] = wrapSource(*frame.cells[i]->value,
                                            Source::local(frame.code->derefName(static_cast<uint32_t>(i)), static_cast<int64_t>(cellSlot + i)));
    TraceResult result;
    runRoot(root, result);
    result.inputs = inputs_;
    result.guards = guards_;
    result.graph = std::move(graph_);
    return result;
}

void Tracer::step(TraceFrame& frame) {
    TraceFrame* saved = current_;
    current_ = &frame;
    try {
        evaluateInstruction(*this, frame);
    } catch (...) {
        current_ = saved;
        throw;
    }
    current_ = saved;
}

void Tracer::runRoot(TraceFrame& root, TraceResult& result) {
    for (;;) {
        if (auto it = options_.breakBefore.find(root.pc); it != options_.breakBefore.end()) {
            current_ = &root;
            finishWithBreak(result, root, it->second);
            return;
        }
        try {
            step(root);
        } catch (Unsupported& u) {
            result.graphBreak = u.info;
            result.restartAt = root.pc;
            return;
        } catch (vm::VmError& error) {
            // Errors Dynamo raises to the user (UserError: guarding on data-dependent values) end the compile.
            if (error.pythonClass() == "UserError") throw;
            breakOnError(root, result, error.what());
            return;
        } catch (std::exception& error) {
            breakOnError(root, result, error.what());
            return;
        }
        if (root.returned) {
            current_ = &root;
            finishWithReturn(result, *root.returned);
            return;
        }
    }
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
        }
    };
    switch (v->kind) {
        case Variable::Kind::Tensor:
        case Variable::Kind::SymScalar:
            if (v->node && v->node->op != NodeOp::Placeholder && v->node->op != NodeOp::GetAttr) asOutput(v->node);
            else fromSourceOrConstant();
            return r;
        case Variable::Kind::List:
        case Variable::Kind::Tuple:
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
            for (const VarRef& item : v->items) r.items.push_back(rebuildOf(item, outputs, outputIndex));
            if (v->value.is(vm::Kind::Tuple)) r.constant = v->value;
            return r;
        case Variable::Kind::Dict:
            r.kind = Rebuild::Kind::Dict;
            r.keys = v->keys;
            for (const VarRef& item : v->items) r.items.push_back(rebuildOf(item, outputs, outputIndex));
            return r;
        case Variable::Kind::Null: r.kind = Rebuild::Kind::Null; return r;
        case Variable::Kind::TensorMethod:
        case Variable::Kind::ListMethod:
        case Variable::Kind::BoundMethod:
            r.kind = Rebuild::Kind::TensorMethod;
            r.name = v->name;
            r.items.push_back(rebuildOf(v->self, outputs, outputIndex));
            return r;
        case Variable::Kind::Iterator:
            r.kind = Rebuild::Kind::Iterator;
            for (size_t i = v->position; i < v->items.size(); ++i) r.items.push_back(rebuildOf(v->items[i], outputs, outputIndex));
            return r;
        case Variable::Kind::Slice:
            r.kind = Rebuild::Kind::Constant;
            r.constant = exampleOf(v);
            return r;
        case Variable::Kind::Python: fromSourceOrConstant(); return r;
    }
    return r;
}

void Tracer::finishWithReturn(TraceResult& result, const VarRef& value) {
    std::vector<Arg> outputs;
    std::map<const Node*, size_t> index;
    result.returned = true;
    result.returnValue = rebuildOf(value, outputs, index);
    recordListMutations(result, outputs, index);
    graph_->setOutput(std::move(outputs));
}

void Tracer::recordListMutations(TraceResult& result, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex) {
    for (const VarRef& list : mutatedLists_) {
        Rebuild items;
        items.kind = Rebuild::Kind::List;
        for (const VarRef& item : list->items) items.items.push_back(rebuildOf(item, outputs, outputIndex));
        result.mutatedLists.emplace_back(list->source, std::move(items));
    }
}

void Tracer::finishWithBreak(TraceResult& result, TraceFrame& root, const GraphBreakInfo& info) {
    std::vector<Arg> outputs;
    std::map<const Node*, size_t> index;
    result.graphBreak = info;
    result.breakPc = root.pc;
    // Dynamo's order: the stack first, then the live locals.
    for (const VarRef& v : root.stack) result.stack.push_back(rebuildOf(v, outputs, index));
    std::vector<bool> live = liveLocalsAt(*root.code, root.pc);
    for (size_t i = 0; i < root.locals.size(); ++i)
        if (live[i] && root.locals[i]) result.locals.emplace_back(static_cast<uint32_t>(i), rebuildOf(root.locals[i], outputs, index));
    recordListMutations(result, outputs, index);
    graph_->setOutput(std::move(outputs));
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
