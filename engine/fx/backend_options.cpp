// The option checks of registered backends (see backend_options.h), asked by the VM's torch.compile.
#include "fx/backend_options.h"

#include <map>

#include "fx/backend.h"

namespace eng::fx {

namespace {

std::map<std::string, OptionsCheck>& optionChecks() {
    static std::map<std::string, OptionsCheck> checks;
    return checks;
}

}  // namespace

void checkNamedBackendOptions(const vm::CompileOptions& options) {
    auto found = optionChecks().find(options.backend);
    if (found != optionChecks().end()) found->second(options.backendOptions);
}

void registerBackendOptions(const std::string& backend, OptionsCheck check) {
    optionChecks()[backend] = std::move(check);
    installBackendCatalog();
}

}  // namespace eng::fx
