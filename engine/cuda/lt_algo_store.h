// The cuBLASLt algorithm that a compiled linear's first call timed, kept per problem (shape, type, epilogue, pointer
// alignments, library and device) in the kernel cache directory, so that every process runs the same algorithm.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "cuda/blas.h"
#include "kernel_cache/disk_cache.h"

namespace eng::cuda {

// What decides the algorithm's choice and validity: cuBLASLt documents its algorithm struct as serialisable for
// the same library version, and the timing is the device's.
struct LtAlgoKey {
    std::string library;  // cuBLASLt's version
    std::string device;   // the device's name and architecture
    GemmType type = GemmType::Float32;
    int64_t m = 0, n = 0, k = 0;
    Epilogue epilogue = Epilogue::None;
    uint32_t alignWeight = 16, alignX = 16, alignOut = 16, alignBias = 16;
};
std::string ltAlgoKeyText(const LtAlgoKey& key);

// cublasLtMatmulAlgo_t's opaque words.
using LtAlgoWords = std::array<uint64_t, 8>;
// "cublasLt algorithm 1\n" and one line of 16 hex digits a word; decode gives nullopt for anything else.
std::string encodeLtAlgo(const LtAlgoWords& words);
std::optional<LtAlgoWords> decodeLtAlgo(const std::string& text);

class LtAlgoStore {
public:
    // An empty directory (CWB_KERNEL_CACHE=0) keeps nothing.
    explicit LtAlgoStore(std::filesystem::path dir = kernel_cache::defaultKernelCacheDir()) : disk_(std::move(dir), ".ltalgo") {}
    std::optional<LtAlgoWords> load(const LtAlgoKey& key) const;
    void store(const LtAlgoKey& key, const LtAlgoWords& words) const;
    const kernel_cache::DiskKernelCache& disk() const { return disk_; }

private:
    kernel_cache::DiskKernelCache disk_;
};

}  // namespace eng::cuda
