// The only TU with ORC's headers: builds one module per kernel of a graph, runs the O3 pipeline for the host CPU
// with glibc's libmvec as vector math library, compiles it to an object file and JIT-links the objects in one
// session (libmvec in the symbol search). Objects are kept in the on-disk kernel cache, keyed by the kernel IR.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "inductor/cpu/cpu_codegen.h"
#include "inductor/cpu/cpu_codegen_internal.h"
#include "kernel_cache/disk_cache.h"

namespace eng::inductor::cpu {

struct CpuKernelModule::Impl {
    std::unique_ptr<llvm::orc::LLJIT> jit;
};

CpuKernelModule::CpuKernelModule(std::unique_ptr<Impl> impl, std::vector<KernelEntry> entries, std::vector<KernelEntry> finishes,
                                 std::vector<std::string> irTexts, std::vector<double> kernelSeconds, std::vector<bool> fromCache,
                                 double compileSeconds)
    : impl_(std::move(impl)),
      entries_(std::move(entries)),
      finishes_(std::move(finishes)),
      irTexts_(std::move(irTexts)),
      kernelSeconds_(std::move(kernelSeconds)),
      fromCache_(std::move(fromCache)),
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

std::string objectFile(llvm::Module& module, llvm::TargetMachine& tm) {
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
        throw std::runtime_error("the target machine cannot emit object files");
    pm.run(module);
    return std::string(buffer.data(), buffer.size());
}

// What besides the kernel IR decides the machine code: this build of cwb (its code generator), LLVM, the host
// CPU and whether libmvec is there. A rebuilt cwb misses the entries of the old one.
std::string buildIdentity() {
    static const std::string identity = "cwb-cpu-kernel 1 llvm " LLVM_VERSION_STRING " " + kernel_cache::executableIdentity();
    return identity;
}

// A cached kernel: the optimised IR shown to users, then the object file.
std::string packCached(const std::string& irText, const std::string& object) { return std::to_string(irText.size()) + "\n" + irText + object; }

std::optional<std::pair<std::string, std::string>> unpackCached(const std::string& entry) {
    const size_t newline = entry.find('\n');
    if (newline == std::string::npos) return std::nullopt;
    const size_t length = std::strtoull(entry.substr(0, newline).c_str(), nullptr, 10);
    if (entry.size() <= newline + 1 + length) return std::nullopt;
    return std::make_pair(entry.substr(newline + 1, length), entry.substr(newline + 1 + length));
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
    std::vector<bool> fromCache;
    const kernel_cache::DiskKernelCache cache(kernel_cache::defaultKernelCacheDir(), ".o");
    // The kernel's optimised IR text (the entry first, then the combo parts or the finish) and its object file.
    auto generate = [&](const Kernel& kernel, const std::string& name) {
        auto context = std::make_unique<llvm::LLVMContext>();
        auto module = std::make_unique<llvm::Module>(name, *context);
        module->setDataLayout(tm->createDataLayout());
        module->setTargetTriple(tm->getTargetTriple().str());
        try {
            if (kernel.isCombo()) detail::emitComboKernel(*module, kernel, name, cpu, features);
            else detail::emitKernel(*module, kernel, name, cpu, features);
        } catch (const std::exception& e) {
            throw std::runtime_error("kernel " + kernel.name + ": " + e.what());
        }
        std::string verifyMessage;
        llvm::raw_string_ostream verifyStream(verifyMessage);
        if (llvm::verifyModule(*module, &verifyStream))
            throw std::runtime_error("generated LLVM IR of kernel " + kernel.name + " is invalid: " + verifyStream.str());
        optimise(*module, *tm, useLibmvec, avx512);
        std::string text;
        llvm::raw_string_ostream os(text);
        module->getFunction(name)->print(os);
        for (llvm::Function& f : *module)
            if (!f.isDeclaration() && f.getName() != name) f.print(os);
        return std::make_pair(std::move(os.str()), objectFile(*module, *tm));
    };
    std::vector<std::string> names;
    for (size_t i = 0; i < kernels.size(); ++i) {
        const auto kernelStarted = std::chrono::steady_clock::now();
        std::string name = kernels[i].name.empty() ? "cwb_kernel" : kernels[i].name;
        if (std::find(names.begin(), names.end(), name) != names.end()) name += "_" + std::to_string(i);
        names.push_back(name);
        const std::string key = buildIdentity() + "\n" + tm->getTargetTriple().str() + " " + cpu + " " + features +
                                (useLibmvec ? " libmvec" : "") + "\n" + name + "\n" + kernelText(kernels[i]);
        std::optional<std::pair<std::string, std::string>> cached;
        if (auto entry = cache.load(key)) cached = unpackCached(*entry);
        fromCache.push_back(cached.has_value());
        if (!cached) {
            cached = generate(kernels[i], name);
            cache.store(key, packCached(cached->first, cached->second));
        }
        irTexts.push_back(cached->first);
        orThrow(impl->jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(cached->second, name)), "adding the kernel's object");
        auto address = orThrow(impl->jit->lookup(name), "linking the kernel");
        entries.push_back(address.toPtr<KernelEntry>());
        finishes.push_back(kernels[i].hasOuterRangeReductions()
                               ? orThrow(impl->jit->lookup(name + kFinishSuffix), "linking the kernel's finish").toPtr<KernelEntry>()
                               : nullptr);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - kernelStarted).count());
    }
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return std::make_shared<CpuKernelModule>(std::move(impl), std::move(entries), std::move(finishes), std::move(irTexts), std::move(seconds),
                                             std::move(fromCache), total);
}

}  // namespace eng::inductor::cpu
