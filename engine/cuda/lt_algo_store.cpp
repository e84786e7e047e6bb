// The persisted cuBLASLt algorithm choices: text files in the kernel cache (DiskKernelCache's layout, which checks
// the whole key on load), one a problem.
#include "cuda/lt_algo_store.h"

#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

namespace eng::cuda {

namespace {

constexpr std::string_view kHeader = "cublasLt algorithm 1\n";

const char* typeName(GemmType type) {
    switch (type) {
        case GemmType::Float32: return "float32";
        case GemmType::Float64: return "float64";
        case GemmType::Float16: return "float16";
        case GemmType::BFloat16: return "bfloat16";
    }
    return "?";
}

}  // namespace

std::string ltAlgoKeyText(const LtAlgoKey& key) {
    return fmt::format("cublasLt linear\nlibrary {}\ndevice {}\ntype {}\nm {} n {} k {}\nepilogue {}\nalignment weight {} x {} out {} bias {}\n",
                       key.library, key.device, typeName(key.type), key.m, key.n, key.k, epilogueName(key.epilogue), key.alignWeight,
                       key.alignX, key.alignOut, key.alignBias);
}

std::string encodeLtAlgo(const LtAlgoWords& words) {
    std::string text(kHeader);
    for (uint64_t word : words) text += fmt::format("{:016x}\n", word);
    return text;
}

std::optional<LtAlgoWords> decodeLtAlgo(const std::string& text) {
    constexpr size_t kLine = 17;  // 16 hex digits and '\n'
    LtAlgoWords words{};
    if (text.size() != kHeader.size() + words.size() * kLine || text.compare(0, kHeader.size(), kHeader) != 0) return std::nullopt;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string line = text.substr(kHeader.size() + i * kLine, kLine);
        if (line.back() != '\n' || line.find_first_not_of("0123456789abcdef") != 16) return std::nullopt;
        words[i] = std::strtoull(line.c_str(), nullptr, 16);
    }
    return words;
}

std::optional<LtAlgoWords> LtAlgoStore::load(const LtAlgoKey& key) const {
    std::optional<std::string> text = disk_.load(ltAlgoKeyText(key));
    if (!text) return std::nullopt;
    return decodeLtAlgo(*text);
}

void LtAlgoStore::store(const LtAlgoKey& key, const LtAlgoWords& words) const { disk_.store(ltAlgoKeyText(key), encodeLtAlgo(words)); }

}  // namespace eng::cuda
