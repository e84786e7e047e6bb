// torch.compile's `options={...}`, checked against the torch._inductor.config keys cwb knows
// (vm/inductor_config.h: their types, and whether cwb does what they say). The backend registers the check with the backend registry (fx/backend_options.h), which
// torch.compile asks when called, as PyTorch checks them, so mistakes surface at once.
#pragma once

#include <string>
#include <vector>

#include "vm/value.h"

namespace eng::inductor {

/// Raises RuntimeError with PyTorch's wording for unknown keys and wrong types, and cwb's reason for options it
/// cannot honour when set away from their default.
void validateInductorOptions(const vm::Value& options);

/// The value of `name` in a validated options dict, or `fallback` when absent.
bool inductorFlag(const vm::Value& options, const std::string& name, bool fallback);

}  // namespace eng::inductor
