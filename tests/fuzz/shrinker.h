// Shrinks a failing generated program to a minimal one that still fails the same way (same kind, same
// configuration): drops statements, calls, inputs, the int argument and dynamic= while the failure stays.
#pragma once

#include "differential_runner.h"
#include "program_generator.h"

namespace cwb::fuzz {

Program shrinkProgram(Program program, const Verdict& failure, const std::string& device, int timeoutSeconds);

}  // namespace cwb::fuzz
