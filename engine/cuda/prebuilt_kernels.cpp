// The set of kernels embedded at build time (prebuilt_kernels.h): their image format, registration and lookup.
#include "cuda/prebuilt_kernels.h"

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "cuda/driver.h"
#include "cuda/nvrtc_compiler.h"

namespace eng::cuda {

namespace {

constexpr std::string_view kHeader = "cwb prebuilt kernels 1\n";

struct Registry {
    std::mutex mutex;
    std::vector<std::string_view> images;
    bool parsed = false;
    std::vector<PrebuiltKernel> kernels;
    std::unordered_multimap<std::string, const PrebuiltKernel*> byEntry;
};

Registry& registry() {
    static Registry instance;
    return instance;
}

// 90 for "sm_90" or "compute_90"; -1 for anything else.
int archNumber(std::string_view arch) {
    const size_t underscore = arch.find('_');
    if (underscore == std::string_view::npos || underscore + 1 >= arch.size()) return -1;
    int value = 0;
    for (char c : arch.substr(underscore + 1)) {
        if (c < '0' || c > '9') return -1;
        value = value * 10 + (c - '0');
    }
    return value;
}

}  // namespace

uint64_t sourceDigest(std::string_view code) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : code) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return hash;
}

std::string packPrebuiltKernels(const std::vector<PrebuiltKernel>& kernels) {
    std::string image(kHeader);
    for (const PrebuiltKernel& kernel : kernels) {
        image += fmt::format("{} {} {:016x} {}\n", kernel.arch, kernel.entry, kernel.digest, kernel.image.size());
        image += kernel.image;
    }
    return image;
}

std::vector<PrebuiltKernel> unpackPrebuiltKernels(std::string_view image) {
    if (image.substr(0, kHeader.size()) != kHeader) throw CudaError("prebuilt kernels: not an image of this format");
    std::vector<PrebuiltKernel> kernels;
    size_t at = kHeader.size();
    while (at < image.size()) {
        const size_t end = image.find('\n', at);
        if (end == std::string_view::npos) throw CudaError("prebuilt kernels: a record without its line end");
        std::istringstream line{std::string(image.substr(at, end - at))};
        PrebuiltKernel kernel;
        std::string digest;
        size_t bytes = 0;
        if (!(line >> kernel.arch >> kernel.entry >> digest >> bytes) || digest.size() != 16 || end + 1 + bytes > image.size())
            throw CudaError(fmt::format("prebuilt kernels: a bad record at byte {}", at));
        kernel.digest = std::stoull(digest, nullptr, 16);
        kernel.image = image.substr(end + 1, bytes);
        kernels.push_back(std::move(kernel));
        at = end + 1 + bytes;
    }
    return kernels;
}

void registerPrebuiltKernels(const unsigned char* begin, const unsigned char* end) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.images.emplace_back(reinterpret_cast<const char*>(begin), static_cast<size_t>(end - begin));
    r.parsed = false;
}

const std::vector<PrebuiltKernel>& prebuiltKernels() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    if (!r.parsed) {
        r.kernels.clear();
        r.byEntry.clear();
        for (std::string_view image : r.images)
            for (PrebuiltKernel& kernel : unpackPrebuiltKernels(image)) r.kernels.push_back(std::move(kernel));
        for (const PrebuiltKernel& kernel : r.kernels) r.byEntry.emplace(kernel.entry, &kernel);
        r.parsed = true;
    }
    return r.kernels;
}

bool prebuiltKernelsEnabled() {
    static const bool enabled = [] {
        const char* setting = std::getenv("CWB_PREBUILT_KERNELS");
        return setting == nullptr || std::string_view(setting) != "0";
    }();
    return enabled;
}

const PrebuiltKernel* findPrebuilt(const KernelSource& source, const std::string& deviceArch) {
    if (!prebuiltKernelsEnabled()) return nullptr;
    prebuiltKernels();
    Registry& r = registry();
    const int device = archNumber(deviceArch);
    if (device < 0) return nullptr;
    const PrebuiltKernel* best = nullptr;
    int bestNumber = -1;
    bool bestIsCubin = false;
    uint64_t digest = 0;
    bool digested = false;
    std::lock_guard lock(r.mutex);
    auto [first, last] = r.byEntry.equal_range(source.entry);
    for (auto it = first; it != last; ++it) {
        const PrebuiltKernel& kernel = *it->second;
        const int number = archNumber(kernel.arch);
        const bool cubin = !kernel.ptx();
        // Machine code runs on its own major version only; PTX on any later architecture (the driver compiles it).
        if (number < 0 || number > device || (cubin && number / 10 != device / 10)) continue;
        if (!digested) {
            digest = sourceDigest(source.code);
            digested = true;
        }
        if (kernel.digest != digest) continue;
        if (best == nullptr || (cubin && !bestIsCubin) || (cubin == bestIsCubin && number > bestNumber)) {
            best = &kernel;
            bestNumber = number;
            bestIsCubin = cubin;
        }
    }
    return best;
}

}  // namespace eng::cuda
