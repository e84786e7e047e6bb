// The check of torch.compile's options={...}: the backend that reads the options registers it (the inductor's
// config keys), and torch.compile runs it when called, as PyTorch checks options at once.
#pragma once

#include <functional>

#include "vm/value.h"

namespace eng::vm {

using CompileOptionsCheck = std::function<void(const Value& options)>;
/// Installs the check (the last one installed wins); without one, options are kept as given.
void setCompileOptionsCheck(CompileOptionsCheck check);

}  // namespace eng::vm
