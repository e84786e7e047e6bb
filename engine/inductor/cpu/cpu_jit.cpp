// The only TU with ORC's headers: builds one module per kernel of a graph, runs the O3 pipeline for the host CPU
// with glibc's libmvec as vector math library, and JIT-links them in one session (libmvec in the symbol search).
#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "inductor/cpu/cpu_codegen.h"
#include "inductor/cpu/cpu_codegen_internal.h"

namespace eng::inductor::cpu {

struct CpuKernelModule::Impl {
    std::unique_ptr<llvm::orc::LLJIT> jit;
};

CpuKernelModule::CpuKernelModule(std::unique_ptr<Impl> impl, std::vector<KernelEntry> entries, std::vector<KernelEntry> finishes,
                                 std::vector<std::string> irTexts, std::vector<double> kernelSeconds, double compileSeconds)
    : impl_(std::move(impl)),
      entries_(std::move(entries)),
      finishes_(std::move(finishes)),
      irTexts_(std::move(irTexts)),
      kernelSeconds_(std::move(kernelSeconds)),
      compileSeconds_(compileSeconds) {}

CpuKernelModule::~CpuKernelModule() = default;

int64_t outerPointCount(const Kernel& kernel, const SymbolValues& symbols) {
    int64_t total = 1;
    for (const Index& r : kernel.outerRanges) total *= evaluate(r, {}, symbols);
    return total;
}

namespace {

template <typename T>
T orThrow(llvm::Expected<T> value, const char* what) {
    if (!value) throw std::runtime_error(std::string(what) + ": " + llvm::toString(value.takeError()));
    return std::move(*value);
}

void orThrow(llvm::Error error, const char* what) {
    if (error) throw std::runtime_error(std::string(what) + ": " + llvm::toString(std::move(error)));
}

// libmvec entry points beyond LLVM 19's LIBMVEC-X86 table (which has only sin/cos/tan/exp/log/pow): glibc 2.35+
// ships SSE (b, 4 lanes), AVX2 (d, 8) and AVX-512 (e, 16) variants of these float functions too.
const char* const kExtraUnary[] = {"exp2f", "log2f", "expm1f", "log1pf", "asinf", "acosf", "atanf", "sinhf",
                                   "coshf", "tanhf", "asinhf", "acoshf", "atanhf", "erff"};

std::vector<llvm::VecDesc> extraVectorFunctions(bool avx512) {
    // VecDesc keeps StringRefs: the names live in a static store for the life of the process.
    static std::mutex mutex;
    static std::vector<std::unique_ptr<std::string>> names;
    std::lock_guard lock(mutex);
    auto keep = [&](std::string s) -> llvm::StringRef {
        for (auto& n : names)
            if (*n == s) return *n;
        names.push_back(std::make_unique<std::string>(std::move(s)));
        return *names.back();
    };
    std::vector<llvm::VecDesc> out;
    struct Variant { const char* isa; unsigned lanes; };
    std::vector<Variant> variants = {{"b", 4}, {"d", 8}};
    if (avx512) variants.push_back({"e", 16});
    auto add = [&](const std::string& scalar, const char* params) {
        for (const Variant& v : variants) {
            const std::string lanes = std::to_string(v.lanes);
            out.emplace_back(keep(scalar), keep("_ZGV" + std::string(v.isa) + "N" + lanes + params + "_" + scalar),
                             llvm::ElementCount::getFixed(v.lanes), false, keep("_ZGV_LLVM_N" + lanes + params));
        }
    };
    for (const char* f : kExtraUnary) add(f, "v");
    add("atan2f", "vv");
    if (avx512) {  // LLVM's own table stops at 8 lanes
        for (const char* f : {"sinf", "cosf", "tanf", "expf", "logf"}) add(f, "v");
        for (const char* f : {"llvm.sin.f32", "llvm.cos.f32", "llvm.exp.f32", "llvm.log.f32"}) {
            std::string base = std::string(f).substr(5);
            base = base.substr(0, base.find('.')) + "f";
            out.emplace_back(keep(f), keep("_ZGVeN16v_" + base), llvm::ElementCount::getFixed(16), false, keep("_ZGV_LLVM_N16v"));
        }
        add("powf", "vv");
        out.emplace_back(keep("llvm.pow.f32"), keep("_ZGVeN16vv_powf"), llvm::ElementCount::getFixed(16), false, keep("_ZGV_LLVM_N16vv"));
    }
    return out;
}

void optimise(llvm::Module& module, llvm::TargetMachine& tm, bool useLibmvec, bool avx512) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions options;
    options.LoopVectorization = true;
    options.SLPVectorization = true;
    options.LoopUnrolling = false;  // halves compile time; the vectoriser still interleaves the hot loops
    llvm::PassBuilder pb(&tm, options);
    llvm::TargetLibraryInfoImpl tlii(tm.getTargetTriple());
    if (useLibmvec) {
        tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, tm.getTargetTriple());
        tlii.addVectorizableFunctions(extraVectorFunctions(avx512));
    }
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(module, mam);
}

}  // namespace

std::shared_ptr<CpuKernelModule> compileCpuKernels(const std::vector<Kernel>& kernels) {
    const auto started = std::chrono::steady_clock::now();
    static std::once_flag initialised;
    std::call_once(initialised, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
    for (const Kernel& k : kernels) {
        try {
            verifyKernel(k);
        } catch (const std::logic_error& e) {
            throw std::runtime_error("kernel " + k.name + ": " + e.what());
        }
    }

    auto jtmb = orThrow(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
    // The IR is already optimised at O3; the default backend level compiles faster with the same vector code.
    jtmb.setCodeGenOptLevel(llvm::CodeGenOptLevel::Default);
    const std::string cpu = jtmb.getCPU();
    const std::string features = jtmb.getFeatures().getString();
    const bool avx512 = features.find("+avx512f") != std::string::npos;
    auto tm = orThrow(jtmb.createTargetMachine(), "creating the target machine");

    auto impl = std::make_unique<CpuKernelModule::Impl>();
    impl->jit = orThrow(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(jtmb).create(), "creating the JIT");
    llvm::orc::JITDylib& dylib = impl->jit->getMainJITDylib();
    const char prefix = impl->jit->getDataLayout().getGlobalPrefix();
    dylib.addGenerator(orThrow(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix), "searching the process"));
    // libmvec is not linked into the process; without it the vectoriser must not call its functions.
    bool useLibmvec = false;
    if (auto mvec = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix)) {
        dylib.addGenerator(std::move(*mvec));
        useLibmvec = true;
    } else {
        llvm::consumeError(mvec.takeError());
    }

    // One module per kernel, generated, optimised and linked in turn, so that each kernel's compile time is
    // its own (the trace shows it per kernel); they share the JIT session and its symbol search.
    std::vector<KernelEntry> entries, finishes;
    std::vector<std::string> irTexts;
    std::vector<double> seconds;
    std::vector<std::string> names;
    for (size_t i = 0; i < kernels.size(); ++i) {
        const auto kernelStarted = std::chrono::steady_clock::now();
        std::string name = kernels[i].name.empty() ? "cwb_kernel" : kernels[i].name;
        if (std::find(names.begin(), names.end(), name) != names.end()) name += "_" + std::to_string(i);
        names.push_back(name);
        auto context = std::make_unique<llvm::LLVMContext>();
        auto module = std::make_unique<llvm::Module>(name, *context);
        module->setDataLayout(tm->createDataLayout());
        module->setTargetTriple(tm->getTargetTriple().str());
        try {
            if (kernels[i].isCombo()) detail::emitComboKernel(*module, kernels[i], name, cpu, features);
            else detail::emitKernel(*module, kernels[i], name, cpu, features);
        } catch (const std::exception& e) {
            throw std::runtime_error("kernel " + kernels[i].name + ": " + e.what());
        }
        std::string verifyMessage;
        llvm::raw_string_ostream verifyStream(verifyMessage);
        if (llvm::verifyModule(*module, &verifyStream))
            throw std::runtime_error("generated LLVM IR of kernel " + kernels[i].name + " is invalid: " + verifyStream.str());
        optimise(*module, *tm, useLibmvec, avx512);
        std::string text;
        llvm::raw_string_ostream os(text);
        module->getFunction(name)->print(os);
        if (kernels[i].isCombo() || kernels[i].hasOuterRangeReductions())  // then the parts the entry calls, or the finish
            for (llvm::Function& f : *module)
                if (!f.isDeclaration() && f.getName() != name) f.print(os);
        irTexts.push_back(std::move(os.str()));
        orThrow(impl->jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))), "adding the module");
        auto address = orThrow(impl->jit->lookup(name), "linking the kernel");
        entries.push_back(address.toPtr<KernelEntry>());
        finishes.push_back(kernels[i].hasOuterRangeReductions()
                               ? orThrow(impl->jit->lookup(name + kFinishSuffix), "linking the kernel's finish").toPtr<KernelEntry>()
                               : nullptr);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - kernelStarted).count());
    }
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return std::make_shared<CpuKernelModule>(std::move(impl), std::move(entries), std::move(finishes), std::move(irTexts), std::move(seconds), total);
}

}  // namespace eng::inductor::cpu
