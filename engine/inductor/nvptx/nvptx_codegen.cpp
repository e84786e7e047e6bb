// Pointwise kernels as NVPTX LLVM IR: the grid-stride loops of the CUDA generator's pointwise strategies around the
// CPU generator's expression emitter (cpu::detail::KernelEmitter), libm calls and math intrinsics redirected to
// libdevice, libdevice linked (only what is used), the O3 pipeline for the GPU, then PTX from the NVPTX backend.
#include "inductor/nvptx/nvptx_codegen.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "inductor/cpu/cpu_codegen_internal.h"
#include "inductor/nvptx/nvptx_internal.h"
#include "kernel_cache/disk_cache.h"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace eng::inductor::nvptx {

namespace {

using llvm::Value;

constexpr const char* kTriple = detail::kNvptxTriple;

}  // namespace

namespace detail {

// "sm_90" -> 90; 0 for anything else.
int smVersion(const std::string& arch) {
    if (arch.rfind("sm_", 0) != 0 || arch.size() < 5) return 0;
    return std::atoi(arch.c_str() + 3);
}

// CWB_LIBDEVICE if set, else the toolkit's libdevice that cwb was built against.
std::string libdevicePath() {
    if (const char* path = std::getenv("CWB_LIBDEVICE"); path && *path) return path;
    return CWB_LIBDEVICE_PATH;
}

const llvm::MemoryBuffer& libdevice() {
    static std::mutex mutex;
    static std::unique_ptr<llvm::MemoryBuffer> buffer;
    std::lock_guard lock(mutex);
    if (!buffer) {
        auto file = llvm::MemoryBuffer::getFile(libdevicePath());
        if (!file) throw std::runtime_error("cannot read libdevice at " + libdevicePath() + " (CWB_LIBDEVICE): " + file.getError().message());
        buffer = std::move(*file);
    }
    return *buffer;
}

const llvm::Target& nvptxTarget() {
    static std::once_flag initialised;
    std::call_once(initialised, [] {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
    });
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
    if (!target) throw std::runtime_error("LLVM has no NVPTX target: " + error);
    return *target;
}

}  // namespace detail

namespace {

using namespace detail;

// for (iv = start; iv < end; iv += step) body(iv), rotated; the builder ends in the exit block.
void gridLoop(cpu::detail::KernelEmitter& e, Value* start, Value* end, Value* step, const std::function<void(Value*)>& body) {
    llvm::IRBuilder<>& b = e.b;
    llvm::BasicBlock* pre = b.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(e.ctx, "loop", e.fn);
    auto* exit = llvm::BasicBlock::Create(e.ctx, "loop.exit", e.fn);
    b.CreateCondBr(b.CreateICmpSLT(start, end), loop, exit);
    b.SetInsertPoint(loop);
    llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, "iv");
    iv->addIncoming(start, pre);
    body(iv);
    e.forget();  // values of the body do not dominate the exit
    Value* next = b.CreateAdd(iv, step, "", true, true);
    iv->addIncoming(next, b.GetInsertBlock());
    b.CreateCondBr(b.CreateICmpSLT(next, end), loop, exit);
    b.SetInsertPoint(exit);
}

Value* specialRegister(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id) {
    return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), b.getInt64Ty());
}

// The kernel's entry: buffers (noalias, as the CUDA generator's __restrict__), then int64 symbols, in Kernel order.
llvm::Function* emitPointwise(llvm::Module& module, const Kernel& kernel, const PtxLaunchPlan& plan, int sm) {
    cpu::detail::KernelEmitter e(module, kernel);
    // NVRTC's kernels round to bfloat16 with cvt.rn.bf16.f32 too; the integer sequence made B4's bfloat16 GELU 10%
    // slower on the H100 (0.2571 against 0.2334 ms a call).
    e.nativeBFloat16 = sm >= 80;
    llvm::IRBuilder<>& b = e.b;
    std::vector<llvm::Type*> params(kernel.buffers.size(), b.getPtrTy());
    params.insert(params.end(), kernel.symbols.size(), b.getInt64Ty());
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), params, false), llvm::Function::ExternalLinkage, kernel.name, module);
    const bool vectors = plan.vectorWidth > 1;
    for (size_t i = 0; i < kernel.buffers.size(); ++i) {
        if (!kernel.buffers[i].aliased) fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
        // Vector plans assume 16-byte aligned buffers (the launcher checks): lanes of a step merge into one access.
        if (vectors) fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::getWithAlignment(e.ctx, llvm::Align(16)));
        e.buffers.push_back(fn->getArg(static_cast<unsigned>(i)));
    }
    for (size_t i = 0; i < kernel.symbols.size(); ++i) e.symbols[kernel.symbols[i]] = fn->getArg(static_cast<unsigned>(kernel.buffers.size() + i));
    e.fn = fn;
    b.SetInsertPoint(llvm::BasicBlock::Create(e.ctx, "entry", fn));
    e.vars.assign(static_cast<size_t>(kernel.outerVarCount()), nullptr);

    Value* flat = nullptr;  // the element being computed
    e.indexOverride = [&](const Index& ix) -> Value* { return flat && plan.isFlatIndex && plan.isFlatIndex(ix) ? flat : nullptr; };
    std::vector<Value*> sizes;
    Value* numel = b.getInt64(1);
    for (const Index& range : kernel.outerRanges) numel = b.CreateMul(numel, sizes.emplace_back(e.index(range)), "", true, true);
    // One element: the outer variables decoded from its flat position (last fastest), then every store in order.
    auto element = [&](Value* position) {
        e.forget();
        flat = position;
        Value* rest = position;
        for (size_t d = sizes.size(); d-- > 0;) {
            if (d == 0) {
                e.vars[d] = rest;
                break;
            }
            e.vars[d] = b.CreateURem(rest, sizes[d]);
            rest = b.CreateUDiv(rest, sizes[d]);
        }
        for (const KernelPass& pass : kernel.passes)
            for (const Store& s : pass.stores) e.store(s);
        flat = nullptr;
    };
    // A vector step: each buffer read at the flat index loaded as one vector before the lanes, each written there
    // stored as one after them (the CUDA plan has no store feeding a later load, and one store per buffer), so
    // that the accesses are 16 bytes wide even where a lane's math branches (libdevice's sin and cos do).
    std::set<int> vectorLoads;
    std::unordered_set<const Expr*> seen;
    for (const KernelPass& pass : kernel.passes)
        for (const Store& s : pass.stores)
            forEachExprOnce(s.value, [&](const Expr& x) { if (x.kind == Expr::Kind::Load && plan.isFlatIndex && plan.isFlatIndex(x.index)) vectorLoads.insert(x.buffer); }, seen);
    auto vectorStep = [&](Value* base, const std::function<void(int64_t)>& lanes) {
        const unsigned width = static_cast<unsigned>(plan.vectorWidth);
        auto access = [&](int buffer) {
            llvm::Type* type = e.memType(kernel.buffers[static_cast<size_t>(buffer)].dtype);
            const uint64_t bytes = width * type->getPrimitiveSizeInBits() / 8;
            return std::make_tuple(llvm::FixedVectorType::get(type, width), b.CreateInBoundsGEP(type, e.buffers[static_cast<size_t>(buffer)], base),
                                   llvm::Align(bytes));
        };
        std::map<int, Value*> loaded;
        for (int buffer : vectorLoads) {
            auto [type, pointer, align] = access(buffer);
            loaded[buffer] = b.CreateAlignedLoad(type, pointer, align);
        }
        std::map<int, std::vector<Value*>> stored;
        int64_t lane = 0;
        e.loadOverride = [&](const Expr& x) -> Value* {
            auto found = loaded.find(x.buffer);
            return found != loaded.end() && plan.isFlatIndex(x.index) ? b.CreateExtractElement(found->second, static_cast<uint64_t>(lane)) : nullptr;
        };
        e.storeOverride = [&](const Store& s, Value* raw) {
            if (!plan.isFlatIndex(s.index)) return false;
            std::vector<Value*>& values = stored[s.buffer];
            values.resize(width);
            values[static_cast<size_t>(lane)] = raw;
            return true;
        };
        for (; lane < plan.vectorWidth; ++lane) lanes(lane);
        e.loadOverride = nullptr;
        e.storeOverride = nullptr;
        for (auto& [buffer, values] : stored) {
            auto [type, pointer, align] = access(buffer);
            Value* vector = llvm::PoisonValue::get(type);
            for (unsigned k = 0; k < width; ++k) vector = b.CreateInsertElement(vector, values[k], static_cast<uint64_t>(k));
            b.CreateAlignedStore(vector, pointer, align);
        }
    };
    Value* tid = specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    Value* block = specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
    Value* blocks = specialRegister(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
    const int64_t threads = plan.blockX;
    Value* tailStart = b.getInt64(0);
    if (vectors) {
        // Each grid step a block covers threads * unroll consecutive vectors; lane k of a vector is element base + k.
        const int64_t width = plan.vectorWidth, perBlock = threads * plan.unroll;
        Value* vectorCount = b.CreateUDiv(numel, b.getInt64(static_cast<uint64_t>(width)));
        gridLoop(e, b.CreateMul(block, b.getInt64(static_cast<uint64_t>(perBlock)), "", true, true), vectorCount,
                 b.CreateMul(blocks, b.getInt64(static_cast<uint64_t>(perBlock)), "", true, true), [&](Value* chunk) {
                     for (int u = 0; u < plan.unroll; ++u) {
                         Value* vec = b.CreateAdd(b.CreateAdd(chunk, b.getInt64(static_cast<uint64_t>(u * threads)), "", true, true), tid, "", true, true);
                         auto* body = llvm::BasicBlock::Create(e.ctx, "vector", fn);
                         auto* next = llvm::BasicBlock::Create(e.ctx, "vector.next", fn);
                         b.CreateCondBr(b.CreateICmpSLT(vec, vectorCount), body, next);
                         b.SetInsertPoint(body);
                         Value* base = b.CreateMul(vec, b.getInt64(static_cast<uint64_t>(width)), "", true, true);
                         vectorStep(base, [&](int64_t k) { element(b.CreateAdd(base, b.getInt64(static_cast<uint64_t>(k)), "", true, true)); });
                         b.CreateBr(next);
                         b.SetInsertPoint(next);
                         e.forget();
                     }
                 });
        tailStart = b.CreateMul(vectorCount, b.getInt64(static_cast<uint64_t>(width)), "", true, true);
    }
    // The scalar loop: everything for the scalar plan, the tail (numel % width) after the vectors.
    const auto* constantNumel = llvm::dyn_cast<llvm::ConstantInt>(numel);
    if (!vectors || !constantNumel || constantNumel->getSExtValue() % plan.vectorWidth != 0) {
        Value* start = b.CreateAdd(tailStart, b.CreateAdd(b.CreateMul(block, b.getInt64(static_cast<uint64_t>(threads)), "", true, true), tid, "", true, true), "", true, true);
        gridLoop(e, start, numel, b.CreateMul(blocks, b.getInt64(static_cast<uint64_t>(threads)), "", true, true), element);
    }
    b.CreateRetVoid();
    e.indexOverride = nullptr;

    llvm::NamedMDNode* annotations = module.getOrInsertNamedMetadata("nvvm.annotations");
    auto annotate = [&](const char* what, int value) {
        annotations->addOperand(llvm::MDNode::get(e.ctx, {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(e.ctx, what),
                                                          llvm::ConstantAsMetadata::get(b.getInt32(static_cast<uint32_t>(value)))}));
    };
    annotate("kernel", 1);
    annotate("maxntidx", plan.blockX);
    return fn;
}

}  // namespace

namespace detail {

// The emitter's math (ops/unary_math.def's libm calls and intrinsics, frem) as libdevice calls: NVPTX lowers no
// accurate exp, log, sin, cos or pow of its own and has no libm. sqrt, fabs, floor/ceil/trunc/rint and
// maximum/minimum stay intrinsics (PTX instructions with the same rounding).
void redirectMathToLibdevice(llvm::Module& module) {
    for (llvm::Function& f : module)
        if (f.isDeclaration() && !f.isIntrinsic() && !f.getName().starts_with("__nv_")) f.setName("__nv_" + f.getName().str());
    struct Redirect {
        llvm::Intrinsic::ID id;
        const char* name;
    };
    static const Redirect kRedirects[] = {{llvm::Intrinsic::exp, "exp"},   {llvm::Intrinsic::log, "log"},     {llvm::Intrinsic::sin, "sin"},
                                          {llvm::Intrinsic::cos, "cos"},   {llvm::Intrinsic::pow, "pow"},     {llvm::Intrinsic::exp2, "exp2"},
                                          {llvm::Intrinsic::log2, "log2"}, {llvm::Intrinsic::log10, "log10"}};
    std::vector<llvm::Instruction*> replaced;
    for (llvm::Function& f : module) {
        for (llvm::BasicBlock& block : f) {
            for (llvm::Instruction& inst : block) {
                const char* name = nullptr;
                if (inst.getOpcode() == llvm::Instruction::FRem) name = "fmod";
                if (auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&inst))
                    for (const Redirect& r : kRedirects)
                        if (call->getIntrinsicID() == r.id) name = r.name;
                if (!name) continue;
                llvm::Type* type = inst.getType();
                const std::string function = std::string("__nv_") + name + (type->isDoubleTy() ? "" : "f");
                std::vector<Value*> operands;
                const unsigned count = llvm::isa<llvm::CallInst>(inst) ? llvm::cast<llvm::CallInst>(inst).arg_size() : inst.getNumOperands();
                for (unsigned i = 0; i < count; ++i) operands.push_back(inst.getOperand(i));
                std::vector<llvm::Type*> types(operands.size(), type);
                llvm::IRBuilder<> b(&inst);
                llvm::CallInst* call = b.CreateCall(module.getOrInsertFunction(function, llvm::FunctionType::get(type, types, false)), operands);
                call->setDoesNotAccessMemory();
                inst.replaceAllUsesWith(call);
                replaced.push_back(&inst);
            }
        }
    }
    for (llvm::Instruction* inst : replaced) inst->eraseFromParent();
}

void linkLibdevice(llvm::Module& module, const llvm::Function& kernel) {
    auto library = llvm::getLazyBitcodeModule(libdevice().getMemBufferRef(), module.getContext());
    if (!library) throw std::runtime_error("cannot read libdevice: " + llvm::toString(library.takeError()));
    (*library)->setDataLayout(module.getDataLayout());  // libdevice's own triple and layout are generic
    (*library)->setTargetTriple(module.getTargetTriple());
    if (llvm::Linker::linkModules(module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded))
        throw std::runtime_error("linking libdevice failed");
    // Only the kernel is an entry: the rest may be inlined and dropped.
    for (llvm::Function& f : module)
        if (!f.isDeclaration() && &f != &kernel) f.setLinkage(llvm::GlobalValue::InternalLinkage);
    for (llvm::GlobalVariable& g : module.globals())
        if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
    // libdevice asks __nvvm_reflect whether to flush denormals: no, as NVRTC without fast-math.
    module.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
}

void optimise(llvm::Module& module, llvm::TargetMachine& tm, llvm::OptimizationLevel level) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(&tm);  // the target adds NVVMReflect and its own passes
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.buildPerModuleDefaultPipeline(level).run(module, mam);
}

std::string emitPtx(llvm::Module& module, llvm::TargetMachine& tm) {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream ptxStream(buffer);
    llvm::legacy::PassManager codegen;
    if (tm.addPassesToEmitFile(codegen, ptxStream, nullptr, llvm::CodeGenFileType::AssemblyFile))
        throw std::runtime_error("the NVPTX target machine cannot emit PTX");
    codegen.run(module);
    return std::string(buffer.data(), buffer.size());
}

}  // namespace detail

bool nvptxCovers(const Kernel& kernel, const std::string& arch) {
    const int sm = smVersion(arch);
    if (sm < 52 || sm > 90 || kernel.isCombo() || kernel.isReduction() || !kernel.finalStores.empty() || kernel.passes.empty()) return false;
    try {
        libdevice();
    } catch (const std::runtime_error&) {
        return false;  // NVRTC, which brings its own libdevice, compiles it
    }
    return true;
}

PtxKernel generatePtx(const Kernel& kernel, const PtxLaunchPlan& plan, const std::string& arch) {
    if (!nvptxCovers(kernel, arch)) throw std::logic_error("the NVPTX path does not generate kernel " + kernel.name + " for " + arch);
    const llvm::Target& target = nvptxTarget();
    // PTX ISA 7.8 (CUDA 11.8) is the first with sm_90; NVRTC of CUDA 12+ needs a driver that reads it anyway.
    std::unique_ptr<llvm::TargetMachine> tm(target.createTargetMachine(kTriple, arch, "+ptx78", llvm::TargetOptions(), std::nullopt,
                                                                       std::nullopt, llvm::CodeGenOptLevel::Aggressive));
    if (!tm) throw std::runtime_error("cannot create an NVPTX target machine for " + arch);
    using Clock = std::chrono::steady_clock;
    Clock::time_point mark = Clock::now();
    std::string phases;  // CWB_NVPTX_LOG=1: where the time went
    auto phase = [&](const char* name) {
        const Clock::time_point now = Clock::now();
        phases += fmt::format(" {} {:.2f}", name, std::chrono::duration<double, std::milli>(now - mark).count());
        mark = now;
    };
    llvm::LLVMContext context;
    llvm::Module module(kernel.name, context);
    module.setTargetTriple(kTriple);
    module.setDataLayout(tm->createDataLayout());
    llvm::Function* fn = emitPointwise(module, kernel, plan, smVersion(arch));
    PtxKernel out;
    llvm::raw_string_ostream irStream(out.kernelIr);
    redirectMathToLibdevice(module);
    fn->print(irStream);
    std::string verifyMessage;
    llvm::raw_string_ostream verifyStream(verifyMessage);
    if (llvm::verifyModule(module, &verifyStream))
        throw std::runtime_error("generated NVPTX IR of kernel " + kernel.name + " is invalid: " + verifyStream.str());
    phase("emit");
    linkLibdevice(module, *fn);
    phase("libdevice");
    optimise(module, *tm, llvm::OptimizationLevel::O3);
    phase("O3");
    out.ptx = emitPtx(module, *tm);
    phase("ptx");
    if (const char* log = std::getenv("CWB_NVPTX_LOG"); log && *log == '1')
        std::fprintf(stderr, "cwb: LLVM NVPTX %s (%zu bytes of PTX), ms:%s\n", kernel.name.c_str(), out.ptx.size(), phases.c_str());
    return out;
}

const std::string& nvptxIdentity() {
    static const std::string identity = [] {
        std::string text = "cwb-nvptx 1 llvm " LLVM_VERSION_STRING " libdevice ";
        try {
            text += std::to_string(libdevice().getBufferSize());
        } catch (const std::exception&) {
            text += "missing";
        }
        return text + " " + kernel_cache::executableIdentity();
    }();
    return identity;
}

}  // namespace eng::inductor::nvptx
