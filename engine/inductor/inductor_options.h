// The inductor's options: torch._inductor.config's keys with torch 2.11's defaults and what cwb does with each, the
// options each torch.compile mode stands for, and the check of options={...}. installInductorBackend() registers
// the table with the backend registry (fx/backend_options.h), from which the VM's torch._inductor.config,
// list_options(), list_mode_options() and torch.compile's check read it.
#pragma once

#include <string>

#include "fx/backend_options.h"
#include "vm/value.h"

namespace eng::inductor {

/// The one table of the inductor's options (with its modes and its check).
fx::BackendOptionTable inductorOptionTable();

/// Raises RuntimeError with PyTorch's wording for unknown keys and wrong types, and cwb's reason for options it
/// cannot honour when set away from their default.
void validateInductorOptions(const vm::Value& options);

/// The value of `name` in a validated options dict, or torch's default for it.
vm::Value inductorOption(const vm::Value& options, const std::string& name);
/// inductorOption's truth value.
bool inductorFlag(const vm::Value& options, const std::string& name);
/// The truth value of `name` in a validated options dict, or `fallback` when absent (where a mode decides it).
bool inductorFlag(const vm::Value& options, const std::string& name, bool fallback);

}  // namespace eng::inductor
