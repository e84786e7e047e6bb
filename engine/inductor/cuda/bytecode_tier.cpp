// The GPU interpreter tier (bytecode_tier.h): the embedded interpreter image loaded once per device through the
// device's module cache (cuModuleLoadData: machine code for the device's architecture, no JIT), programs uploaded in
// one copy per graph, launches shaped as the quick tier's.
#include "inductor/cuda/bytecode_tier.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>

#include "inductor/cuda/cuda_tiers.h"

namespace eng::inductor::cuda {

#if CWB_BYTECODE_TIER
extern "C" const unsigned char cwb_bytecode_interpreter_fatbin[];
extern "C" const unsigned char cwb_bytecode_interpreter_fatbin_end[];
#endif

namespace {

constexpr unsigned kPointwiseBlock = 128;
constexpr unsigned kReductionBlock = 32;  // a thread walks whole rows: small blocks spread the rows over every SM

// The block forms' settings (bytecode_tier.h), read once.
struct RowSettings {
    int64_t blockRowPoints = environmentInt("CWB_BYTECODE_BLOCK_ROWS", 256);
    int64_t pointsPerThread = std::max(1, environmentInt("CWB_BYTECODE_ROW_POINTS", 16));
    int64_t maxBlock = std::clamp(environmentInt("CWB_BYTECODE_ROW_BLOCK", 256) / 32 * 32, 32, 1024);
    int64_t partialsBytes = int64_t{std::max(1, environmentInt("CWB_BYTECODE_PARTIALS_MB", 64))} << 20;
};
const RowSettings& rowSettings() {
    static const RowSettings settings;
    return settings;
}

const eng::cuda::CompiledKernel& interpreterModule(const std::string& arch) {
#if CWB_BYTECODE_TIER
    // One image for every architecture: the driver picks the CUBIN of the device's (or JITs the PTX once).
    static const std::string image(reinterpret_cast<const char*>(cwb_bytecode_interpreter_fatbin),
                                   static_cast<size_t>(cwb_bytecode_interpreter_fatbin_end - cwb_bytecode_interpreter_fatbin));
#else
    static const std::string image;
#endif
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<eng::cuda::CompiledKernel>> byArch;
    std::lock_guard lock(mutex);
    auto& module = byArch[arch];
    if (!module) {
        module = std::make_shared<eng::cuda::CompiledKernel>();
        module->key = "cwb bytecode interpreter (embedded)";
        module->entry = "cwb_bytecode_points";
        module->arch = arch;
        module->cubin = image;
    }
    return *module;
}

}  // namespace

std::string bytecodeTierArchitectures() {
#if CWB_BYTECODE_TIER
    return CWB_BYTECODE_ARCHS;
#else
    return "";
#endif
}

bool bytecodeTierAvailable(const std::string& arch) {
#if CWB_BYTECODE_TIER
    // sm_XY with a CUBIN listed, or newer than the newest (its PTX).
    const std::string number = arch.substr(arch.rfind('_') + 1);
    const std::string listed = CWB_BYTECODE_ARCHS;
    int newest = 0;
    for (size_t start = 0; start < listed.size();) {
        const size_t end = std::min(listed.find(',', start), listed.size());
        const std::string item = listed.substr(start, end - start);
        if (item == number) return true;
        newest = std::max(newest, std::atoi(item.c_str()));
        start = end + 1;
    }
    return std::atoi(number.c_str()) > newest;
#else
    (void)arch;
    return false;
#endif
}

bool bytecodeSlowerThanQuickTier(const Kernel& kernel) {
    if (!kernel.isReduction()) return false;
    const std::optional<int64_t> points = constantValue(product(kernel.reductionRanges));
    return points && *points > kLongRowPoints;
}

int64_t bytecodeRowThreads(int64_t reductionPoints, bool inPieces) {
    const RowSettings& settings = rowSettings();
    if (!inPieces && (settings.blockRowPoints <= 0 || reductionPoints < settings.blockRowPoints)) return 1;
    const int64_t wanted = (reductionPoints + settings.pointsPerThread - 1) / settings.pointsPerThread;
    return std::clamp<int64_t>((wanted + 31) / 32 * 32, 32, settings.maxBlock);
}

int64_t bytecodePieceBytes(const bytecode::Program& program, int64_t reductionPoints) {
    return std::max<int64_t>(reductionPoints, 1) * static_cast<int64_t>(sizeof(bytecode::Accumulator)) * std::max(program.outerSlotCount, 1);
}

int64_t bytecodePieces(const bytecode::Program& program, int64_t outerPoints, int64_t reductionPoints) {
    return std::clamp<int64_t>(rowSettings().partialsBytes / bytecodePieceBytes(program, reductionPoints), 1, std::max<int64_t>(outerPoints, 1));
}

BytecodePrograms::BytecodePrograms(eng::cuda::DeviceContext& device, std::vector<std::unique_ptr<bytecode::Program>> programs)
    : device_(device), programs_(std::move(programs)), onDevice_(programs_.size(), nullptr) {
    // Each program's used prefix, 16-byte aligned, in one block.
    std::vector<size_t> offsets;
    size_t total = 0;
    for (const auto& program : programs_) {
        offsets.push_back(total);
        if (program) total += (bytecodeProgramBytes(*program) + 15) / 16 * 16;
    }
    if (total == 0) return;
    std::vector<unsigned char> host(total);
    for (size_t i = 0; i < programs_.size(); ++i)
        if (programs_[i]) std::memcpy(host.data() + offsets[i], programs_[i].get(), bytecodeProgramBytes(*programs_[i]));
    memory_ = device_.allocate(total);
    device_.copyHostToDevice(memory_, host.data(), total);
    for (size_t i = 0; i < programs_.size(); ++i)
        if (programs_[i]) onDevice_[i] = reinterpret_cast<const bytecode::Program*>(static_cast<unsigned char*>(memory_) + offsets[i]);
}

BytecodePrograms::~BytecodePrograms() {
    if (memory_) device_.deallocate(memory_);
}

void BytecodePrograms::launch(size_t index, const Kernel& kernel, std::span<void* const> buffers, const SymbolValues& symbols) {
    bytecode::Launch l = bytecodeLaunch(kernel, onDevice_.at(index), buffers, symbols);
    const eng::cuda::CompiledKernel& module = interpreterModule(device_.arch());
    auto shape = [&](int64_t threads, unsigned block) { return gridStrideShape(device_, threads, block); };
    void* args[] = {&l};
    const bool inPieces = bytecodeRunsInPieces(kernel);
    const int64_t rowThreads = kernel.isReduction() || inPieces ? bytecodeRowThreads(l.reductionPoints, inPieces) : 1;
    const auto block = static_cast<unsigned>(rowThreads);
    if (!inPieces) {
        if (l.outerPoints <= 0) return;
        if (rowThreads == 1)
            device_.launch(module, shape(l.outerPoints, kernel.isReduction() ? kReductionBlock : kPointwiseBlock), args);
        else  // a block per row
            device_.launch(module, shape(l.outerPoints * rowThreads, block), args, "cwb_bytecode_rows");
        return;
    }
    l.pieces = bytecodePieces(*programs_.at(index), l.outerPoints, l.reductionPoints);
    const int64_t pieceBytes = bytecodePieceBytes(*programs_.at(index), l.reductionPoints);
    void* partials = device_.allocate(static_cast<size_t>(l.pieces * pieceBytes));
    l.partials = static_cast<bytecode::Accumulator*>(partials);
    try {
        device_.launch(module, shape(l.pieces * rowThreads, block), args, "cwb_bytecode_pieces");
        if (l.reductionPoints > 0) device_.launch(module, shape(l.reductionPoints, kPointwiseBlock), args, "cwb_bytecode_finish");
    } catch (...) {
        device_.deallocate(partials);
        throw;
    }
    device_.deallocate(partials);  // stream-ordered: the next user of the block runs after these launches
}

}  // namespace eng::inductor::cuda
