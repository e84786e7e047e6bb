// torch.compile(options={"guard_filter_fn": fn}): Dynamo hands fn one GuardFilterEntry per guard of a compile and
// keeps the guards fn returns True for; torch.compiler's four ready-made filters (skip guards on built-in or on all
// nn modules, keep only tensor guards, skip guards on globals) work on the same entries, as the docs describe.
#pragma once

#include <vector>

#include "capture/guards.h"

namespace eng::capture {

/// The guards `filter` keeps (entries built from each guard's source and its value in this frame).
std::vector<GuardSpec> filterGuards(vm::Interpreter& vm, const vm::Value& filter, std::vector<GuardSpec> guards, const vm::ValueList& locals,
                                    const vm::Namespace& globals);

/// torch.compiler.skip_guard_on_inbuilt_nn_modules_unsafe, skip_guard_on_all_nn_modules_unsafe,
/// keep_tensor_guards_unsafe and skip_guard_on_globals_unsafe.
void installGuardFilterHelpers(vm::Interpreter& vm, vm::Namespace& compiler);

}  // namespace eng::capture
