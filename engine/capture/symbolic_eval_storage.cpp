// Tensor.untyped_storage() and Tensor.element_size() in the trace (Dynamo's UntypedStorageVariable): the storage
// of a tensor read from the frame is a constant whose size() folds, as Dynamo folds a static storage size; the
// element size follows the dtype, which the tensor's guard fixes.
#include <fmt/core.h>

#include "capture/symbolic_eval.h"

namespace eng::capture {

std::optional<VarRef> callStorageMethod(Tracer& tracer, const VarRef& self, const std::string& name, const std::vector<VarRef>& args,
                                        const std::vector<std::pair<std::string, VarRef>>& kwargs) {
    if (name != "untyped_storage" && name != "element_size") return std::nullopt;
    if (!args.empty() || !kwargs.empty()) vm::typeError(fmt::format("{}() takes no arguments", name));
    if (name == "element_size") return tracer.constant(vm::Value(static_cast<int64_t>(self->value.tensor().itemBytes())));
    // Only a tensor from outside the frame has a storage whose size is known before the graph runs: the trace
    // computes on a private copy, so the size is the real tensor's (not guarded, as in Dynamo).
    if (!self->source || self->node)
        tracer.unsupported("Unsupported Tensor.untyped_storage() call",
                           "Dynamo does not trace `Tensor.untyped_storage()` of a tensor computed in the compiled region.", {},
                           "call_method TensorVariable() untyped_storage () {}");
    const vm::Value real = self->original.isNone() || self->original.isNull() ? self->value : self->original;
    return tracer.constant(tracer.vm().call(tracer.vm().getAttr(real, "untyped_storage"), {}));
}

}  // namespace eng::capture
