// The instruction handlers of the symbolic evaluator, one file per opcode family: stack/names/containers/
// control flow (symbolic_eval_basic.cpp), operators/attributes/items (symbolic_eval_ops.cpp) and calls
// (symbolic_eval_calls.cpp, with torch functions, tensor methods, builtins and nn modules).
#pragma once

#include <functional>

#include "capture/tracer.h"
#include "frontend/opcodes.h"

namespace eng::capture {

/// Executes the instruction at frame.pc symbolically and advances the pc.
void evaluateInstruction(Tracer& tracer, TraceFrame& frame);
/// Operators, attributes and subscripts; false when the opcode is not of that family.
bool evaluateOperatorInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in);
/// CALL, CALL_KW and CALL_FUNCTION_EX.
bool evaluateCallInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in);

/// Cells and closures: LOAD_DEREF, LOAD_CLOSURE, STORE_DEREF, MAKE_FUNCTION (symbolic_eval_closures.cpp).
bool evaluateClosureInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in);
/// BEFORE_WITH: torch.no_grad() / enable_grad() record torch._C._set_grad_enabled; any other context manager
/// breaks the graph with Dynamo's "Unsupported context manager".
bool evaluateWith(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in);
/// The call of such a with-block's exit: records the restoring node (nullopt for any other callable).
std::optional<VarRef> callGradModeExit(Tracer& tracer, const VarRef& callable);
/// Calling a class that has a metaclass (enum_values.cpp): an enum class of constants folds to its member; one whose
/// metaclass defines __call__ breaks the graph; nullopt for the rest (made as other classes are).
std::optional<VarRef> callMetaclassInstance(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args,
                                            const std::vector<std::pair<std::string, VarRef>>& kwargs);
/// Iterating a class through its metaclass's __iter__ breaks as Dynamo does (gb7312), at no resume point.
void breakOnMetaclassIteration(Tracer& tracer, const VarRef& iterable);
/// Records torch._C._set_grad_enabled(enabled) and switches the trace's grad mode.
void recordSetGradEnabled(Tracer& tracer, bool enabled);
/// A function decorated with @torch.no_grad() / @torch.enable_grad(): inlined between the grad-mode switches its
/// wrapper makes, as Dynamo traces a GradModeVariable-wrapped function; nullopt for any other callee.
std::optional<VarRef> callGradModeDecorated(Tracer& tracer, TraceFrame& frame, const vm::Value& callee, const std::vector<VarRef>& args,
                                            const std::vector<std::pair<std::string, VarRef>>& kwargs);
/// Dynamo's VariableTracker repr of a value in its messages (`LazyVariableTracker(realized: TensorVariable())`).
std::string variableRepr(Tracer& tracer, const Variable& v);
/// Dynamo's dataclasses.fields handling reads a user object's fields only: the call on anything else (the class,
/// `fields(Config)`) breaks the graph with its "dataclass fields failure" (symbolic_eval_objects.cpp).
void breakOnDataclassFieldsOfNonInstance(Tracer& tracer, const vm::Value& function, const std::vector<VarRef>& args);
/// A native called with a closure the trace made among its arguments: the real function cannot see its traced
/// cells, so the graph breaks (torch._check's message callable with Dynamo's own reason, gb0288).
[[noreturn]] void breakOnClosureArgument(Tracer& tracer, const vm::Value& native);
/// A call of torch.optim's SGD / Adam / AdamW `step` (symbolic_eval_optimizer.cpp); nullopt for any other callable.
std::optional<VarRef> callOptimizerStep(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                                        const std::vector<std::pair<std::string, VarRef>>& kwargs);
/// `Cls.apply(...)` of a torch.autograd.Function subclass: one node calling it when the graph runs, or a graph break
/// when its forward or backward may have side effects; torch.func.grad / grad_and_value and their transforms' calls
/// (symbolic_eval_autograd_function.cpp); nullopt for other callables.
std::optional<VarRef> callAutogradFunction(Tracer& tracer, const VarRef& callable, const std::vector<VarRef>& args,
                                           const std::vector<std::pair<std::string, VarRef>>& kwargs);
/// torch.cond: a Python predicate inlines its branch; a tensor one records torch.ops.higher_order.cond, which runs
/// the picked branch when the graph runs (symbolic_eval_cond.cpp).
VarRef traceCond(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                 const std::vector<std::pair<std::string, VarRef>>& kwargs);
/// torch.Tensor.acos_(x, ...): a tensor method read from the class (a native whose __objclass__ is Tensor) called on
/// a traced tensor is that tensor's method call, as Dynamo calls a method descriptor; nullopt for other callables.
std::optional<VarRef> callTensorDescriptor(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                                           const std::vector<std::pair<std::string, VarRef>>& kwargs);
/// A call of a Python builtin (len, isinstance, print, ...) during capture (symbolic_eval_builtins.cpp).
VarRef callBuiltin(Tracer& tracer, TraceFrame& frame, const std::string& name, const vm::Value& callee, std::vector<VarRef>& args,
                   std::vector<std::pair<std::string, VarRef>>& kwargs);
/// torch.no_grad / torch.enable_grad themselves (constructing one is free of effects).
bool isGradModeClass(const vm::Value& value);
/// torch.autocast (= torch.amp.autocast): constructing one with constant arguments is free of effects too.
bool isAutocastClass(const vm::Value& value);

/// nn.Modules (symbolic_eval_modules.cpp): whether a dunder of this value is inlined (a user object's, or a Python
/// one of a module class: ParameterDict.__getitem__); a structural method read from a module (children,
/// named_parameters, ModuleDict.items, ...: nullopt for others) and its call; a module call with its hooks.
bool inlinesDunder(Tracer& tracer, const VarRef& v, const std::string& name);
std::optional<VarRef> moduleMethod(Tracer& tracer, const VarRef& module, const std::string& name, const vm::Value& value);
std::optional<VarRef> callModuleMethod(Tracer& tracer, TraceFrame& frame, const VarRef& callable, const std::vector<VarRef>& args,
                                       const std::vector<std::pair<std::string, VarRef>>& kwargs);
VarRef callModuleWithHooks(Tracer& tracer, TraceFrame& frame, const VarRef& module, std::vector<VarRef> args,
                           std::vector<std::pair<std::string, VarRef>> kwargs,
                           const std::function<VarRef(std::vector<VarRef>, std::vector<std::pair<std::string, VarRef>>)>& forward);

/// Tensor.untyped_storage() of a tensor from outside the frame (a constant storage) and Tensor.element_size()
/// (symbolic_eval_storage.cpp); nullopt for other methods.
std::optional<VarRef> callStorageMethod(Tracer& tracer, const VarRef& self, const std::string& name, const std::vector<VarRef>& args,
                                        const std::vector<std::pair<std::string, VarRef>>& kwargs);

/// RAISE_VARARGS, RERAISE, PUSH_EXC_INFO, POP_EXCEPT, CHECK_EXC_MATCH and WITH_EXCEPT_START over exceptions made
/// in the trace (symbolic_eval_exceptions.cpp); false for other opcodes.
bool evaluateExceptionInstruction(Tracer& tracer, TraceFrame& frame, const frontend::Instruction& in);
/// An exception object made in the trace (a Kind::Object of a BaseException subclass).
bool isTracedException(Tracer& tracer, const VarRef& v);
/// Calling an exception class in the trace: an object whose user __init__ is inlined, else whose `args` are the
/// call's arguments.
VarRef constructException(Tracer& tracer, TraceFrame& frame, const VarRef& cls, std::vector<VarRef> args,
                          std::vector<std::pair<std::string, VarRef>> kwargs);

/// Dynamo's "Missing bytecode handler" break for an instruction the evaluator does not model.
[[noreturn]] void unsupportedInstruction(Tracer& tracer, const frontend::Instruction& in);

/// A user function bound to a traced receiver (inlined with it as self when called).
VarRef boundMethod(const vm::Value& function, const VarRef& self, const std::string& name);

/// A list, tuple, dict or iterator the trace made, holding these items.
VarRef container(Variable::Kind kind, std::vector<VarRef> items);

/// The constant of a code object's pool as a VM value.
vm::Value constantAsValue(const frontend::Constant& constant);

inline VarRef popVar(TraceFrame& frame) {
    VarRef v = std::move(frame.stack.back());
    frame.stack.pop_back();
    return v;
}

/// An IntEnum / IntFlag member as the int it stands for, any other value as it is (enum_values.cpp).
VarRef intOfEnum(Tracer& tracer, const VarRef& v);
/// Counter + Counter and the like, inlined from the class (symbolic_eval_objects.cpp); nullopt for other operands.
std::optional<VarRef> dictClassOperator(Tracer& tracer, TraceFrame& frame, uint32_t op, const VarRef& a, const VarRef& b);

}  // namespace eng::capture
