// Cells and closures made inside the trace (Dynamo's NestedUserFunctionVariable): a nested `def` or lambda is a
// real function whose free variables are the maker's traced cells, so calling it inlines it with live values.
// One that leaves the trace (returned, kept across a break, stored outside) is rebuilt over the frame's real cells
// (tracer_run.cpp), or, closing over an inlined call's cells, breaks where the frame made it.
#include <fmt/core.h>

#include "capture/symbolic_eval.h"

namespace eng::capture {

using frontend::Opcode;

namespace {

CellRef cellAt(TraceFrame& frame, uint32_t index) {
    CellRef& cell = frame.cellValues[index];
    if (!cell) {
        cell = std::make_shared<TracedCell>();
        // A frame's own cells (cellVars) are made by the frame; the rest are the function's real closure.
        cell->local = index < frame.code->cellVars.size();
    }
    return cell;
}

bool madeInTrace(Tracer& tracer, const VarRef& v) {
    return v->kind == Variable::Kind::Python && v->value.is(vm::Kind::Function) &&
           tracer.madeClosures().contains(&v->value.as<vm::FunctionObject>());
}

}  // namespace

bool evaluateClosureInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in) {
    auto& stack = frame.stack;
    switch (in.opcode) {
        case Opcode::LoadDeref: {
            CellRef cell = cellAt(frame, in.arg);
            if (!cell->value) {
                // A real cell that the trace has not read yet: its contents, as a constant.
                if (in.arg < frame.cells.size() && frame.cells[in.arg]->value && !cell->local) cell->value = tracer.constant(*frame.cells[in.arg]->value);
                else vm::raise("NameError", fmt::format("cannot access free variable '{}' where it is not associated with a value in enclosing scope",
                                                        frame.code->derefName(in.arg)));
            }
            if (cell->value->kind == Variable::Kind::Python) tracer.guardValue(cell->value);
            stack.push_back(cell->value);
            return true;
        }
        case Opcode::StoreDeref: {
            CellRef cell = cellAt(frame, in.arg);
            // Writing a real cell from outside the trace (`nonlocal` of an enclosing function) is a side effect we
            // do not replay; the frame's own cells and those of closures made here are the trace's.
            if (!cell->local) unsupportedInstruction(tracer, in);
            VarRef v = popVar(frame);
            if (v->kind == Variable::Kind::Tensor && v->node) tracer.graph().renameOnce(v->node, frame.code->derefName(in.arg));
            cell->value = std::move(v);
            return true;
        }
        case Opcode::LoadClosure: {
            auto v = std::make_shared<Variable>();
            v->kind = Variable::Kind::Cell;
            v->cell = cellAt(frame, in.arg);
            v->position = in.arg;
            v->value = in.arg < frame.cells.size() ? vm::Value(frame.cells[in.arg]) : vm::Value();
            stack.push_back(v);
            return true;
        }
        case Opcode::MakeFunction: {
            auto function = std::make_shared<vm::FunctionObject>();
            function->code = popVar(frame)->value.as<vm::CodeRefObject>().code;
            function->globals = frame.globals;
            std::vector<CellRef> closure;
            if (in.arg & frontend::kMakeFunctionClosure) {
                VarRef cells = popVar(frame);
                for (const VarRef& cell : cells->items) {
                    if (cell->kind != Variable::Kind::Cell) unsupportedInstruction(tracer, in);
                    closure.push_back(cell->cell);
                    function->closure.push_back(cell->value.is(vm::Kind::Cell) ? cell->value.ref<vm::CellObject>()
                                                                                : std::make_shared<vm::CellObject>());
                }
            }
            // Defaults are evaluated at definition: tensors among them would be baked in as constants.
            auto defaultValue = [&](const VarRef& d) {
                if (tracer.containsTensor(d) || madeInTrace(tracer, d) || d->kind == Variable::Kind::Object) unsupportedInstruction(tracer, in);
                return tracer.exampleOf(d);
            };
            if (in.arg & frontend::kMakeFunctionKeywordDefaults) {
                VarRef defaults = popVar(frame);
                for (size_t i = 0; i < defaults->keys.size(); ++i) function->keywordDefaults.emplace_back(defaults->keys[i].str(), defaultValue(defaults->items[i]));
            }
            if (in.arg & frontend::kMakeFunctionDefaults) {
                VarRef defaults = popVar(frame);
                for (const VarRef& d : tracer.unpack(defaults)) function->defaults.push_back(defaultValue(d));
            }
            // Only a function with a closure needs its maker's frame: one without can leave the trace as it is.
            if (!closure.empty()) tracer.madeAt()[function.get()] = tracer.rootFrame()->pc;
            tracer.madeClosures()[function.get()] = std::move(closure);
            tracer.keepAlive(vm::Value(function));
            VarRef v = tracer.constant(vm::Value(function));
            stack.push_back(v);
            return true;
        }
        default: return false;
    }
}

void breakOnClosureArgument(Tracer& tracer, const vm::Value& native) {
    const std::string& name = native.as<vm::NativeObject>().name;
    if (name.starts_with("_check"))  // torch._check(cond, lambda: f"... {n}"): the message reads the frame's cells
        tracer.unsupported("Can't extract message from torch._check()",
                           "The second argument of torch._check() must be a function defined within the torch.compile region that does not "
                           "reference a non-local variable.",
                           {"Make sure the message function is defined in the torch.compile region.",
                            "Remove any closure variables, e.g. remove references to closure variable `x` in `lambda: f'{x} failed check'`",
                            "It may be possible to write Dynamo tracing rules for this code. Please report an issue to PyTorch if you encounter "
                            "this graph break often and it is causing performance issues."},
                           "NestedUserFunctionVariable()", 288);
    tracer.unsupported("Unsupported nested function", "Dynamo does not pass a function with a closure created in the compiled frame to a builtin.",
                       {"Call the nested function inside the compiled region only, or define it outside."}, "call_function " + tracer.vm().repr(native));
}

}  // namespace eng::capture
