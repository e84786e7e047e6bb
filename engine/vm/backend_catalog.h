// What torch.compile asks about backends when called, as PyTorch checks at once: whether a backend name exists,
// the names torch._dynamo.list_backends() shows, and the check of options={...}. The VM knows no backend: the
// backend layer's registry (engine/fx/backend.h) installs the catalog.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vm/value.h"

namespace eng::vm {

struct BackendCatalog {
    std::function<bool(const std::string& name)> exists;
    std::function<std::vector<std::string>(bool withDebugBackends)> listed;
    std::function<void(const CompileOptions& options)> checkOptions;
};

/// Installs the catalog (the last one installed wins). Without one (the VM alone, where compiled functions run
/// eagerly) every name and option is kept as given and no backend is listed.
void setBackendCatalog(BackendCatalog catalog);

}  // namespace eng::vm
