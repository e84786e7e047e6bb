// Shared between the CPU generator's LLVM TUs (not ORC): the per-kernel IR emitter. Expressions and indices are
// emitted in cpu_codegen_expr.cpp, loops and reductions in cpu_codegen_loops.cpp.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor::cpu::detail {

/// Emits one kernel as `void name(ptr buffers, ptr symbols, i64 begin, i64 end)` into `module`, and with
/// reductions over the outer range its finish, `name` + kFinishSuffix, of the same signature.
llvm::Function* emitKernel(llvm::Module& module, const Kernel& kernel, const std::string& name,
                           const std::string& cpu, const std::string& features);

/// An empty `void name(ptr buffers, ptr symbols, i64 begin, i64 end)` for the host CPU.
llvm::Function* createKernelFunction(llvm::Module& module, const std::string& name, const std::string& cpu, const std::string& features);
/// Emits a combo kernel (Kernel::parts) with the same signature: its parts, then an entry that runs each part
/// on the piece of [begin, end) its flattened range covers (cpu_codegen_combo.cpp).
llvm::Function* emitComboKernel(llvm::Module& module, const Kernel& kernel, const std::string& name,
                                const std::string& cpu, const std::string& features);

class KernelEmitter {
public:
    KernelEmitter(llvm::Module& module, const Kernel& kernel);

    // --- cpu_codegen_expr.cpp
    llvm::Value* index(const Index& index);
    llvm::Value* expr(const ExprPtr& e);
    void store(const Store& s);
    /// Register type of a dtype (bool is i1, half/bfloat16 live as float) and its in-memory type.
    llvm::Type* regType(DType d);
    llvm::Type* memType(DType d);
    /// a op b with the interpreter's semantics for dtype `d` (used by reductions too).
    llvm::Value* binaryOp(ElementOp op, llvm::Value* a, llvm::Value* b, DType d, bool reassociate = false);
    llvm::Value* roundTo(llvm::Value* v, DType d);  // half/bfloat16 rounding of a float register
    /// --- cpu_codegen_forms.cpp: an op of ops/unary_math.def or ops/elementwise.def on operands of dtype
    /// `operands` (b is null for unary ops), giving `result` (Bool for predicates).
    llvm::Value* elementOp(ElementOp op, llvm::Value* a, llvm::Value* b, DType operands, DType result, bool reassociate = false);
    llvm::Value* callMath(const char* floatName, const char* doubleName, llvm::Value* a, llvm::Value* bArg = nullptr);
    llvm::Function* ipowHelper();
    /// Forget memoised expression values (after a store, or when leaving the block they were emitted in).
    void forget() { cache_.clear(); }

    // --- cpu_codegen_loops.cpp
    void emitBody(llvm::Function* fn);
    /// The finish of a kernel with reductions over the outer range (cpu_codegen.h: kFinishSuffix).
    void emitFinish(llvm::Function* fn);
    /// The same finish over the points [begin, end) of the flattened reduction range only, for the GPU's quick tier
    /// (a thread per point): `void fn(ptr buffers, ptr symbols, i64 pieces, i64 begin, i64 end)`.
    void emitFinishRange(llvm::Function* fn);
    /// Starts `fn`'s entry block with the buffer and symbol parameters loaded; returns each reduction over the
    /// outer range with its partials pointer (the parameters after the buffers).
    std::vector<std::pair<const Reduction*, llvm::Value*>> enterFunction(llvm::Function* fn);
    /// The reduction range as a loop nest (its variables bound), calling body with the flat position.
    void forEachReductionPoint(const std::vector<llvm::Value*>& extents, const std::function<void(llvm::Value*)>& body);

    llvm::LLVMContext& ctx;
    llvm::Module& module;
    const Kernel& kernel;
    llvm::IRBuilder<> b;
    llvm::Function* fn = nullptr;
    std::vector<llvm::Value*> buffers;                  // data pointers, loaded once at entry
    std::map<std::string, llvm::Value*> symbols;        // symbol name -> i64
    std::vector<llvm::Value*> vars;                     // current value of each loop variable (i64)
    std::map<int, llvm::Value*> finished;               // reduction id -> where its finished value is (this point)
    std::map<int, DType> finishedDtype;
    /// Hooks of the NVPTX generator (inductor/nvptx), unset for the CPU. indexOverride: a value for an index instead
    /// of computing it (the element's flat position). loadOverride: a load's value as stored in memory (a lane of a
    /// vector loaded before), or null to load it. storeOverride: takes a store's value as stored in memory (a lane of
    /// a vector stored after) and returns true, or false to store it.
    std::function<llvm::Value*(const Index&)> indexOverride;
    std::function<llvm::Value*(const Expr&)> loadOverride;
    std::function<bool(const Store&, llvm::Value*)> storeOverride;
    /// bfloat16 rounding as LLVM's fptrunc to bfloat (one cvt.rn.bf16.f32 on sm_80+ GPUs), not the integer sequence
    /// the CPU needs (x86 has no such instruction before AVX-512 BF16).
    bool nativeBFloat16 = false;

private:
    void emitFinishOf(llvm::Function* fn, bool pointRange);
    llvm::Value* castOp(llvm::Value* a, DType from, DType to);
    std::unordered_map<const Expr*, llvm::Value*> cache_;
};

bool isUnsignedLike(DType d);  // compares and divides unsigned (UInt8, Bool)

}  // namespace eng::inductor::cpu::detail
