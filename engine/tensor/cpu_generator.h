// PyTorch's CPU generator (CPUGeneratorImpl): a 32-bit Mersenne Twister seeded from the low 32 bits of the seed, the
// 64-bit draws made of two 32-bit ones, the Box-Muller caches, and torch.get_rng_state's 5056-byte layout.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace eng::tensor {

class CpuGenerator {
public:
    static constexpr uint64_t kDefaultSeed = 67280421310721ULL;  // PyTorch's default_rng_seed_val
    static constexpr size_t kStateBytes = 5056;                   // sizeof(CPUGeneratorImplState)

    explicit CpuGenerator(uint64_t seed = kDefaultSeed) { manualSeed(seed); }

    // Reseeds the twister and forgets both cached normal samples (set_current_seed).
    void manualSeed(uint64_t seed);
    uint64_t initialSeed() const { return seed_; }

    uint32_t random();    // one tempered 32-bit draw
    uint64_t random64();  // (first draw << 32) | second draw

    // The second Box-Muller value of the scalar normal path, kept for the next draw (doubles only on the CPU;
    // the float cache exists in the state layout and is restored, as PyTorch's).
    std::optional<double> nextDoubleNormal;
    std::optional<float> nextFloatNormal;

    // torch.get_rng_state(): the legacy THGenerator struct byte for byte (little-endian, x86-64 padding).
    std::vector<uint8_t> state() const;
    // torch.set_rng_state(): the same bytes back; a wrong size or an invalid twister raises PyTorch's error.
    void setState(const std::vector<uint8_t>& bytes);

private:
    static constexpr int kN = 624;
    void twist();

    uint64_t seed_ = kDefaultSeed;
    int left_ = 1;
    bool seeded_ = false;
    uint32_t next_ = 0;
    std::array<uint32_t, kN> state_{};
};

}  // namespace eng::tensor
