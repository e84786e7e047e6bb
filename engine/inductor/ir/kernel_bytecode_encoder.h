// Encodes a kernel of the kernel IR as the bytecode of kernel_bytecode.h (the same IR the code generators read),
// builds one call's launch record, and runs a program on the host with the interpreter loop the GPU tier runs.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "inductor/ir/kernel_bytecode.h"
#include "inductor/ir/kernel_ir.h"

namespace eng::inductor {

/// The kernel as bytecode, or null with `whyNot` set when the bytecode cannot express it (a combo kernel, complex
/// dtypes, more registers, constants, instructions, buffers, symbols or loop variables than a program holds).
std::unique_ptr<bytecode::Program> encodeKernelBytecode(const Kernel& kernel, std::string* whyNot = nullptr);
/// The bytes of `program` that its interpreter reads (the instructions past instructionCount are not copied).
size_t bytecodeProgramBytes(const bytecode::Program& program);
/// Whether the kernel runs in pieces of its outer range then a finish per point of its reduction range
/// (reductions over the outer range, Kernel::finalStores).
bool bytecodeRunsInPieces(const Kernel& kernel);
/// One call's launch record: `program` (where the interpreter reads it), the buffers, the symbols in
/// Kernel::symbols order and the kernel's ranges evaluated; partials and pieces left for the caller.
bytecode::Launch bytecodeLaunch(const Kernel& kernel, const bytecode::Program* program, std::span<void* const> buffers,
                                const SymbolValues& symbols);
/// Runs `program` (encoded from `kernel`) on host memory as the GPU runs it, in `pieces` shares of the outer range
/// when the kernel has reductions over it (then sums combine per piece, as on the device), each row of a reduction by
/// a group of `groupSize` threads (1, or whole warps up to 1024: the GPU's block forms, bytecode_interpreter.cu) whose
/// partials combine in the GPU's order. Pieces 1 and group 1 are the reference interpreter's order and bits.
void runBytecodeOnHost(const Kernel& kernel, const bytecode::Program& program, std::span<void* const> buffers,
                       const SymbolValues& symbols, int64_t pieces = 1, int64_t groupSize = 1);

}  // namespace eng::inductor
