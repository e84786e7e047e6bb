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

#include "inductor/cpu/cpu_codegen.h"
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

// The quick tier's entry points, their parameters the CUDA kernel's (buffers..., symbols...), then for a kernel with
// reductions over its outer range the workspace of the pieces' partials and the number of pieces
// (cpu::kPartialSlotBytes a point of the reduction range, reduction after reduction, piece after piece):
//   Points: the CPU body `name_body`(buffer array, symbol array, begin, end) for one outer point per thread;
//   Pieces: the body for piece t's share of the outer range, accumulating into piece t's partials;
//   Finish: `name_finish`, the CPU finish for one point of the reduction range per thread, combining the pieces.
// Each thread grid-strides over its points, pieces or reduction points.
enum class EntryKind { Points, Pieces, Finish };

llvm::Function* emitEntry(llvm::Module& module, const Kernel& kernel, llvm::Function* body, EntryKind kind) {
    cpu::detail::KernelEmitter e(module, kernel);
    llvm::IRBuilder<>& b = e.b;
    size_t across = 0;
    for (const KernelPass& pass : kernel.passes)
        for (const Reduction& r : pass.reductions) across += r.overOuterRange ? 1 : 0;
    const bool withPartials = kind != EntryKind::Points;
    std::vector<llvm::Type*> params(kernel.buffers.size(), b.getPtrTy());
    params.insert(params.end(), kernel.symbols.size(), b.getInt64Ty());
    if (withPartials) params.insert(params.end(), {b.getPtrTy(), b.getInt64Ty()});
    const std::string name = kind == EntryKind::Finish ? kernel.name + cpu::kFinishSuffix : kernel.name;
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false), llvm::Function::ExternalLinkage, name, module);
    e.fn = fn;
    b.SetInsertPoint(llvm::BasicBlock::Create(e.ctx, "entry", fn));
    const size_t slots = kernel.buffers.size() + (withPartials ? across : 0);
    auto* bufferArray = b.CreateAlloca(llvm::ArrayType::get(b.getPtrTy(), std::max<size_t>(slots, 1)));
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
    Value* workspace = nullptr;
    Value* pieces = nullptr;
    Value* reductionPoints = b.getInt64(1);
    Value* pieceBytes = nullptr;
    if (withPartials) {
        const unsigned extra = static_cast<unsigned>(kernel.buffers.size() + kernel.symbols.size());
        workspace = fn->getArg(extra);
        pieces = fn->getArg(extra + 1);
        fn->addParamAttr(extra, llvm::Attribute::NoAlias);
        for (const Index& range : kernel.reductionRanges) reductionPoints = b.CreateMul(reductionPoints, e.index(range), "", true, true);
        pieceBytes = b.CreateMul(reductionPoints, b.getInt64(cpu::kPartialSlotBytes), "", true, true);
    }
    // Reduction j's partials of piece `piece` into the buffer array's slot after the buffers.
    auto bindPartials = [&](Value* piece) {
        for (size_t j = 0; j < across; ++j) {
            Value* array = b.CreateMul(b.CreateAdd(b.CreateMul(b.getInt64(j), pieces, "", true, true), piece, "", true, true), pieceBytes, "", true, true);
            b.CreateStore(b.CreateInBoundsGEP(b.getInt8Ty(), workspace, array),
                          b.CreateConstInBoundsGEP1_64(b.getPtrTy(), bufferArray, kernel.buffers.size() + j));
        }
    };
    if (kind == EntryKind::Finish) bindPartials(b.getInt64(0));  // the finish walks the pieces from the first
    Value* count = kind == EntryKind::Points ? points : kind == EntryKind::Pieces ? pieces : reductionPoints;
    Value* threads = specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
    Value* first = b.CreateAdd(b.CreateMul(specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), threads, "", true, true),
                               specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x), "", true, true);
    Value* step = b.CreateMul(specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), threads, "", true, true);
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(e.ctx, "point", fn);
    auto* exit = llvm::BasicBlock::Create(e.ctx, "done", fn);
    b.CreateCondBr(b.CreateICmpSLT(first, count), loop, exit);
    b.SetInsertPoint(loop);
    llvm::PHINode* point = b.CreatePHI(b.getInt64Ty(), 2, "p");
    point->addIncoming(first, pre);
    Value* next = b.CreateAdd(point, b.getInt64(1), "", true, true);
    if (kind == EntryKind::Points) {
        b.CreateCall(body, {bufferArray, symbolArray, point, next});
    } else if (kind == EntryKind::Pieces) {
        // Piece t covers outer points [t * chunk, (t + 1) * chunk), clamped; an empty piece leaves its partials at
        // the identity, which the finish combines like any other.
        Value* chunk = b.CreateUDiv(b.CreateAdd(points, b.CreateSub(pieces, b.getInt64(1))), pieces);
        Value* begin = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateMul(point, chunk, "", true, true), points);
        Value* end = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.CreateAdd(begin, chunk, "", true, true), points);
        bindPartials(point);
        b.CreateCall(body, {bufferArray, symbolArray, begin, end});
    } else {
        b.CreateCall(body, {bufferArray, symbolArray, pieces, point, next});
    }
    Value* following = b.CreateAdd(point, step, "", true, true);
    point->addIncoming(following, b.GetInsertBlock());
    b.CreateCondBr(b.CreateICmpSLT(following, count), loop, exit);
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

// An internal, always-inlined device function for a CPU body or finish.
llvm::Function* inlinedFunction(llvm::Function* fn) {
    fn->removeFnAttr("target-cpu");
    fn->removeFnAttr("target-features");
    fn->setLinkage(llvm::GlobalValue::InternalLinkage);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
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

const int64_t kQuickPartialSlotBytes = cpu::kPartialSlotBytes;

std::string quickFinishEntry(const std::string& entry) { return entry + cpu::kFinishSuffix; }

bool quickTierCovers(const Kernel& kernel, const std::string& arch) {
    const int sm = detail::smVersion(arch);
    if (sm < 52 || sm > 90 || kernel.isCombo() || kernel.passes.empty()) return false;
    if (!kernel.finalStores.empty() && !kernel.hasOuterRangeReductions()) return false;
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
    llvm::Function* body = inlinedFunction(cpu::detail::createKernelFunction(module, kernel.name + "_body", "", ""));
    const bool nativeBFloat16 = detail::smVersion(arch) >= 80;  // cvt.rn.bf16.f32, as the optimised tier rounds
    {
        cpu::detail::KernelEmitter e(module, kernel);
        e.nativeBFloat16 = nativeBFloat16;
        e.emitBody(body);
    }
    const bool partials = kernel.hasOuterRangeReductions();
    llvm::Function* fn = emitEntry(module, kernel, body, partials ? EntryKind::Pieces : EntryKind::Points);
    llvm::Function* finishBody = nullptr;
    llvm::Function* finishEntry = nullptr;
    if (partials) {
        llvm::Type* i64 = llvm::Type::getInt64Ty(context);
        llvm::Type* ptr = llvm::PointerType::getUnqual(context);
        finishBody = inlinedFunction(llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, ptr, i64, i64, i64}, false),
                                                            llvm::Function::ExternalLinkage, kernel.name + "_finish_body", module));
        cpu::detail::KernelEmitter e(module, kernel);
        e.nativeBFloat16 = nativeBFloat16;
        e.emitFinishRange(finishBody);
        finishEntry = emitEntry(module, kernel, finishBody, EntryKind::Finish);
    }
    detail::redirectMathToLibdevice(module);
    PtxKernel out;
    llvm::raw_string_ostream irStream(out.kernelIr);
    body->print(irStream);
    if (finishBody) finishBody->print(irStream);
    std::string verifyMessage;
    llvm::raw_string_ostream verifyStream(verifyMessage);
    if (llvm::verifyModule(module, &verifyStream))
        throw std::runtime_error("quick-tier NVPTX IR of kernel " + kernel.name + " is invalid: " + verifyStream.str());
    const Clock::time_point emitted = Clock::now();
    detail::linkLibdevice(module, *fn);
    if (finishEntry) finishEntry->setLinkage(llvm::GlobalValue::ExternalLinkage);  // the module's second entry point
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
