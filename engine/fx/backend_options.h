// torch.compile's options={...} belong to the backend they configure: a backend registers its table of options here
// (the inductor's torch._inductor.config keys with torch's defaults, its modes, its check), and the registry's
// catalog (backend.h) hands the VM what torch.compile, torch._inductor.config, list_options() and
// list_mode_options() read from it. The VM holds no backend's options.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vm/backend_catalog.h"
#include "vm/value.h"

namespace eng::fx {

/// Raises with PyTorch's wording for unknown keys and wrong types (RuntimeError).
using OptionsCheck = std::function<void(const vm::Value& options)>;

/// One key of a backend's config: its name ("max_autotune", "triton.cudagraphs"), torch's default (whose kind is
/// the option's type) and what the backend does with it.
struct BackendOption {
    std::string name;
    vm::Value torchDefault;
    std::string meaning;  // what the backend does with it
};

/// A backend's options: the one table its config module, list_options(), the modes and the check derive from.
struct BackendOptionTable {
    std::vector<BackendOption> options;
    vm::ModeOptions modes;  // torch.compile's modes with the options each sets, in PyTorch's order
    OptionsCheck check;     // runs on every torch.compile call's options={...} for this backend
};

/// Registers `backend`'s options for every later torch.compile call; a backend without a table takes any options.
void registerBackendOptions(const std::string& backend, BackendOptionTable table);

/// The table registered for `backend`, or nullptr.
const BackendOptionTable* backendOptionTable(const std::string& backend);

/// Runs the check registered for options.backend, if any, on options.backendOptions.
void checkNamedBackendOptions(const vm::CompileOptions& options);

}  // namespace eng::fx
