// The check of torch.compile's options={...}: torch.compile runs it when called, as PyTorch checks options at once.
// The VM knows no option: the backend layer (engine/fx/backend_options.h) installs a check that asks the named backend.
#pragma once

#include <functional>

#include "vm/value.h"

namespace eng::vm {

using CompileOptionsCheck = std::function<void(const CompileOptions& options)>;
/// Installs the check (the last one installed wins); without one, options are kept as given.
void setCompileOptionsCheck(CompileOptionsCheck check);

}  // namespace eng::vm
