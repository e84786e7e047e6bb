// Combo kernels on the CPU: each part is emitted as an internal kernel function, and the combo's entry walks the
// parts' flattened ranges one after another, calling each part on the piece of [outerBegin, outerEnd) it covers,
// so the launcher's thread split balances work across parts of any size. Parts that share a body
// (ir: comboSharedBodies) call one function with their extent as its symbol.
#include "inductor/cpu/cpu_codegen_internal.h"

namespace eng::inductor::cpu::detail {

llvm::Function* emitComboKernel(llvm::Module& module, const Kernel& kernel, const std::string& name, const std::string& cpu,
                                const std::string& features) {
    // Each part stays a function of its own: inlined, O3's work on one function of many loops grows faster than its
    // size, and a call per part costs nothing next to a loop. Parts with one shared body call one function.
    auto internal = [&](const Kernel& k, const std::string& functionName) {
        llvm::Function* f = emitKernel(module, k, functionName, cpu, features);
        f->setLinkage(llvm::GlobalValue::InternalLinkage);
        f->addFnAttr(llvm::Attribute::NoInline);
        return f;
    };
    const ComboSharedBodies shared = comboSharedBodies(kernel);
    std::vector<llvm::Function*> bodyFunctions, partFunctions;
    for (const Kernel& body : shared.bodies) bodyFunctions.push_back(internal(body, body.name));
    for (size_t p = 0; p < kernel.parts.size(); ++p)
        partFunctions.push_back(shared.bodyOfPart[p] >= 0 ? bodyFunctions[static_cast<size_t>(shared.bodyOfPart[p])]
                                                          : internal(kernel.parts[p].kernel, name + "_part" + std::to_string(p)));
    llvm::LLVMContext& ctx = module.getContext();
    auto* ptr = llvm::PointerType::getUnqual(ctx);
    auto* i64 = llvm::Type::getInt64Ty(ctx);
    llvm::Function* fn = createKernelFunction(module, name, cpu, features);
    KernelEmitter e(module, kernel);
    llvm::IRBuilder<>& b = e.b;
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value* begin = fn->getArg(2);
    llvm::Value* end = fn->getArg(3);
    for (size_t i = 0; i < kernel.symbols.size(); ++i)
        e.symbols[kernel.symbols[i]] = b.CreateLoad(i64, b.CreateConstInBoundsGEP1_64(i64, fn->getArg(1), i), kernel.symbols[i]);
    // The parts' parameters, gathered from the combo's in each part's order (in the entry block, where SROA
    // turns them into registers once the parts are inlined).
    std::vector<llvm::Value*> partBuffers, partSymbols, counts;
    for (size_t p = 0; p < kernel.parts.size(); ++p) {
        const ComboPart& part = kernel.parts[p];
        auto* buffers = b.CreateAlloca(ptr, b.getInt64(std::max<size_t>(1, part.buffers.size())), "part" + std::to_string(p) + "_buffers");
        for (size_t j = 0; j < part.buffers.size(); ++j) {
            llvm::Value* address = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, fn->getArg(0), static_cast<uint64_t>(part.buffers[j])));
            b.CreateStore(address, b.CreateConstInBoundsGEP1_64(ptr, buffers, j));
        }
        auto* symbols = b.CreateAlloca(i64, b.getInt64(std::max<size_t>(1, part.kernel.symbols.size())), "part" + std::to_string(p) + "_symbols");
        counts.push_back(e.index(product(part.kernel.outerRanges)));
        if (shared.bodyOfPart[p] >= 0) b.CreateStore(counts.back(), symbols);  // the body's one symbol, its extent
        else
            for (size_t j = 0; j < part.kernel.symbols.size(); ++j) b.CreateStore(e.symbols.at(part.kernel.symbols[j]), b.CreateConstInBoundsGEP1_64(i64, symbols, j));
        partBuffers.push_back(buffers);
        partSymbols.push_back(symbols);
    }
    llvm::Value* offset = b.getInt64(0);
    for (size_t p = 0; p < kernel.parts.size(); ++p) {
        llvm::Value* next = b.CreateAdd(offset, counts[p]);
        // This part's piece: [max(begin, offset), min(end, next)) less its offset.
        llvm::Value* from = b.CreateSelect(b.CreateICmpSGT(begin, offset), begin, offset);
        llvm::Value* to = b.CreateSelect(b.CreateICmpSLT(end, next), end, next);
        auto* run = llvm::BasicBlock::Create(ctx, "part" + std::to_string(p), fn);
        auto* after = llvm::BasicBlock::Create(ctx, "after_part" + std::to_string(p), fn);
        b.CreateCondBr(b.CreateICmpSLT(from, to), run, after);
        b.SetInsertPoint(run);
        b.CreateCall(partFunctions[p], {partBuffers[p], partSymbols[p], b.CreateSub(from, offset), b.CreateSub(to, offset)});
        b.CreateBr(after);
        b.SetInsertPoint(after);
        offset = next;
    }
    b.CreateRetVoid();
    return fn;
}

}  // namespace eng::inductor::cpu::detail
