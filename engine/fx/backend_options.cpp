// The option checks of registered backends (see backend_options.h), asked by the VM's torch.compile.
#include "fx/backend_options.h"

#include <map>

#include "vm/compile_options_check.h"

namespace eng::fx {

namespace {

std::map<std::string, OptionsCheck>& optionChecks() {
    static std::map<std::string, OptionsCheck> checks;
    return checks;
}

void checkOptionsOfNamedBackend(const vm::CompileOptions& options) {
    auto found = optionChecks().find(options.backend);
    if (found != optionChecks().end()) found->second(options.inductorOptions);
}

}  // namespace

void registerBackendOptions(const std::string& backend, OptionsCheck check) {
    optionChecks()[backend] = std::move(check);
    vm::setCompileOptionsCheck(checkOptionsOfNamedBackend);
}

}  // namespace eng::fx
