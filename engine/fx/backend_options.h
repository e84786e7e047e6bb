// torch.compile's options={...} belong to the backend they configure: a backend registers its check of them here
// (the inductor's config keys), and torch.compile asks the backend it names when called, as PyTorch checks them.
// The VM knows no backend's options: the registry's catalog (backend.h) hands it checkNamedBackendOptions.
#pragma once

#include <functional>
#include <string>

#include "vm/value.h"

namespace eng::fx {

/// Raises with PyTorch's wording for unknown keys and wrong types (RuntimeError), and the backend's reason for an
/// option it cannot honour.
using OptionsCheck = std::function<void(const vm::Value& options)>;

/// Checks the options of every later torch.compile call whose backend is `backend`; a backend without a check
/// takes any options.
void registerBackendOptions(const std::string& backend, OptionsCheck check);

/// Runs the check registered for options.backend, if any, on options.backendOptions.
void checkNamedBackendOptions(const vm::CompileOptions& options);

}  // namespace eng::fx
