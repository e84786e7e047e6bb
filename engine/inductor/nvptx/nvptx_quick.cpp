// The quick tier of a tiered CUDA compile: a kernel's CPU loop body (cpu::detail::KernelEmitter, the interpreter's
// order of every sum) run by one GPU thread per outer point, through a light LLVM pipeline, so that a graph's first
// calls run after milliseconds of compiling while the optimised kernel compiles in the background.
#include "inductor/nvptx/nvptx_codegen.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

#include "inductor/cpu/cpu_codegen_internal.h"
#include "inductor/nvptx/nvptx_internal.h"

namespace eng::inductor::nvptx {

namespace {

using llvm::Value;

// One thread walks a whole row: rows longer than this would make the quick tier slower than waiting for the
// optimised kernel (a full sum of 2^26 elements on one thread takes a second).
constexpr int64_t kMaxReductionPoints = 1 << 16;

Value* specialRegister(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id) {
    return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), b.getInt64Ty());
}

// `name`(buffers..., symbols...), the CUDA kernel's parameters: the CPU body `name_body`(buffer array, symbol
// array, begin, end) called for one outer point per thread, grid-stride.
llvm::Function* emitEntry(llvm::Module& module, const Kernel& kernel, llvm::Function* body) {
    cpu::detail::KernelEmitter e(module, kernel);
    llvm::IRBuilder<>& b = e.b;
    std::vector<llvm::Type*> params(kernel.buffers.size(), b.getPtrTy());
    params.insert(params.end(), kernel.symbols.size(), b.getInt64Ty());
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false), llvm::Function::ExternalLinkage, kernel.name, module);
    e.fn = fn;
    b.SetInsertPoint(llvm::BasicBlock::Create(e.ctx, "entry", fn));
    auto* bufferArray = b.CreateAlloca(llvm::ArrayType::get(b.getPtrTy(), std::max<size_t>(kernel.buffers.size(), 1)));
    auto* symbolArray = b.CreateAlloca(llvm::ArrayType::get(b.getInt64Ty(), std::max<size_t>(kernel.symbols.size(), 1)));
    for (size_t i = 0; i < kernel.buffers.size(); ++i) {
        fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
        b.CreateStore(fn->getArg(static_cast<unsigned>(i)), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), bufferArray, i));
    }
    for (size_t i = 0; i < kernel.symbols.size(); ++i) {
        Value* value = fn->getArg(static_cast<unsigned>(kernel.buffers.size() + i));
        e.symbols[kernel.symbols[i]] = value;
        b.CreateStore(value, b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), symbolArray, i));
    }
    Value* points = b.getInt64(1);
    for (const Index& range : kernel.outerRanges) points = b.CreateMul(points, e.index(range), "", true, true);
    Value* threads = specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
    Value* first = b.CreateAdd(b.CreateMul(specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), threads, "", true, true),
                               specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x), "", true, true);
    Value* step = b.CreateMul(specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), threads, "", true, true);
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(e.ctx, "point", fn);
    auto* exit = llvm::BasicBlock::Create(e.ctx, "done", fn);
    b.CreateCondBr(b.CreateICmpSLT(first, points), loop, exit);
    b.SetInsertPoint(loop);
    llvm::PHINode* point = b.CreatePHI(b.getInt64Ty(), 2, "p");
    point->addIncoming(first, pre);
    b.CreateCall(body, {bufferArray, symbolArray, point, b.CreateAdd(point, b.getInt64(1), "", true, true)});
    Value* next = b.CreateAdd(point, step, "", true, true);
    point->addIncoming(next, loop);
    b.CreateCondBr(b.CreateICmpSLT(next, points), loop, exit);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
    llvm::NamedMDNode* annotations = module.getOrInsertNamedMetadata("nvvm.annotations");
    auto annotate = [&](const char* what, int value) {
        annotations->addOperand(llvm::MDNode::get(e.ctx, {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(e.ctx, what),
                                                          llvm::ConstantAsMetadata::get(b.getInt32(static_cast<uint32_t>(value)))}));
    };
    annotate("kernel", 1);
    annotate("maxntidx", kQuickBlockThreads);
    return fn;
}

// What the quick tier needs of LLVM's optimisation: the body inlined into the entry and its allocas promoted to
// registers, a little clean-up. 0.4-1.6 ms against O1's 3-6 ms (the development machine, loaded), and with no
// code generation optimisation PTX in about 1 ms against 3 ms; the driver's JIT does the rest.
void lightPipeline(llvm::Module& module, llvm::TargetMachine& tm) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(&tm);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm;
    mpm.addPass(llvm::AlwaysInlinerPass());
    llvm::FunctionPassManager fpm;
    fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
    fpm.addPass(llvm::EarlyCSEPass());
    fpm.addPass(llvm::InstCombinePass());
    fpm.addPass(llvm::SimplifyCFGPass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    mpm.addPass(llvm::GlobalDCEPass());
    mpm.run(module, mam);
}

}  // namespace

bool quickTierCovers(const Kernel& kernel, const std::string& arch) {
    const int sm = detail::smVersion(arch);
    if (sm < 52 || sm > 90 || kernel.isCombo() || kernel.hasOuterRangeReductions() || !kernel.finalStores.empty() || kernel.passes.empty())
        return false;
    if (kernel.isReduction()) {
        // Each thread reduces whole rows: only rows of a known, moderate length.
        int64_t points = 1;
        for (const Index& range : kernel.reductionRanges) {
            const std::optional<int64_t> extent = constantValue(range);
            if (!extent) return false;
            points *= *extent;
            if (points > kMaxReductionPoints) return false;
        }
        if (kernel.outerRanges.empty()) return false;
    }
    try {
        detail::libdevice();
    } catch (const std::runtime_error&) {
        return false;
    }
    return true;
}

PtxKernel generateQuickPtx(const Kernel& kernel, const std::string& arch) {
    if (!quickTierCovers(kernel, arch)) throw std::logic_error("the quick tier does not generate kernel " + kernel.name + " for " + arch);
    using Clock = std::chrono::steady_clock;
    const Clock::time_point started = Clock::now();
    std::unique_ptr<llvm::TargetMachine> tm(detail::nvptxTarget().createTargetMachine(
        detail::kNvptxTriple, arch, "+ptx78", llvm::TargetOptions(), std::nullopt, std::nullopt, llvm::CodeGenOptLevel::None));
    if (!tm) throw std::runtime_error("cannot create an NVPTX target machine for " + arch);
    llvm::LLVMContext context;
    llvm::Module module(kernel.name, context);
    module.setTargetTriple(detail::kNvptxTriple);
    module.setDataLayout(tm->createDataLayout());
    llvm::Function* body = cpu::detail::createKernelFunction(module, kernel.name + "_body", "", "");
    body->removeFnAttr("target-cpu");
    body->removeFnAttr("target-features");
    body->setLinkage(llvm::GlobalValue::InternalLinkage);
    body->addFnAttr(llvm::Attribute::AlwaysInline);
    {
        cpu::detail::KernelEmitter e(module, kernel);
        e.nativeBFloat16 = detail::smVersion(arch) >= 80;  // cvt.rn.bf16.f32, as the optimised tier rounds
        e.emitBody(body);
    }
    llvm::Function* fn = emitEntry(module, kernel, body);
    detail::redirectMathToLibdevice(module);
    PtxKernel out;
    llvm::raw_string_ostream irStream(out.kernelIr);
    body->print(irStream);
    std::string verifyMessage;
    llvm::raw_string_ostream verifyStream(verifyMessage);
    if (llvm::verifyModule(module, &verifyStream))
        throw std::runtime_error("quick-tier NVPTX IR of kernel " + kernel.name + " is invalid: " + verifyStream.str());
    const Clock::time_point emitted = Clock::now();
    detail::linkLibdevice(module, *fn);
    const Clock::time_point linked = Clock::now();
    lightPipeline(module, *tm);
    const Clock::time_point optimised = Clock::now();
    out.ptx = detail::emitPtx(module, *tm);
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    if (const char* log = std::getenv("CWB_NVPTX_LOG"); log && *log == '1')
        std::fprintf(stderr, "cwb: quick tier %s (%zu bytes of PTX), ms: emit %.2f libdevice %.2f passes %.2f ptx %.2f\n", kernel.name.c_str(), out.ptx.size(),
                     ms(started, emitted), ms(emitted, linked), ms(linked, optimised), ms(optimised, Clock::now()));
    return out;
}

}  // namespace eng::inductor::nvptx
