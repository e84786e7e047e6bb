// The registered compiled autograd handler (compile_host.h).
#include "fx/compile_host.h"

namespace eng::fx {

namespace {
CompiledAutogradHandler& handlerSlot() {
    static CompiledAutogradHandler handler;
    return handler;
}
}  // namespace

void registerCompiledAutograd(CompiledAutogradHandler handler) { handlerSlot() = std::move(handler); }

const CompiledAutogradHandler& compiledAutogradHandler() { return handlerSlot(); }

}  // namespace eng::fx
