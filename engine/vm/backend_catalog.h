// What torch.compile asks about backends when called, as PyTorch checks at once: whether a backend name exists,
// the names torch._dynamo.list_backends() shows, the check of options={...}, and a backend's config keys and modes
// (torch._inductor.config, list_options(), list_mode_options()). The VM knows no backend: the backend layer's
// registry (engine/fx/backend.h) installs the catalog, from the tables the backends register.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vm/value.h"

namespace eng::vm {

/// Each torch.compile mode with the options it sets (torch._inductor.list_mode_options()), in PyTorch's order.
using ModeOptions = std::vector<std::pair<std::string, std::vector<std::pair<std::string, bool>>>>;
/// A backend's config keys ("max_autotune", "triton.cudagraphs") with torch's defaults, in the backend's order.
using ConfigDefaults = std::vector<std::pair<std::string, Value>>;

struct BackendCatalog {
    std::function<bool(const std::string& name)> exists;
    std::function<std::vector<std::string>(bool withDebugBackends)> listed;
    std::function<void(const CompileOptions& options)> checkOptions;
    std::function<ConfigDefaults(const std::string& backend)> configDefaults;
    std::function<ModeOptions(const std::string& backend)> modeOptions;
};

/// Installs the catalog (the last one installed wins). Without one (the VM alone, where compiled functions run
/// eagerly) every name, mode and option is kept as given, no backend is listed and torch._inductor.config is empty.
void setBackendCatalog(BackendCatalog catalog);
const BackendCatalog& backendCatalog();

class Interpreter;
/// The torch._inductor.config entries the program set away from torch's defaults, as an options dict.
Value inductorConfigOverrides(Interpreter& vm);

}  // namespace eng::vm
