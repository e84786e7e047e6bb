// PyTorch's CPU Mersenne Twister and its state bytes: the twist runs when `left` reaches zero, so the state after
// any number of draws (and what get_rng_state shows of it) is PyTorch's.
#include "tensor/cpu_generator.h"

#include <cstring>

#include <fmt/format.h>

#include "tensor/error.h"

namespace eng::tensor {

namespace {

constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;

uint32_t twisted(uint32_t u, uint32_t v) {
    const uint32_t mixed = (u & 0x80000000U) | (v & 0x7fffffffU);
    return (mixed >> 1) ^ ((v & 1U) ? kMatrixA : 0U);
}

// The byte offsets of CPUGeneratorImplState's fields.
constexpr size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24;
constexpr size_t kNormalYAt = kWordsAt + 624 * 8 + 8, kNormalValidAt = kNormalYAt + 16;
constexpr size_t kFloatNormalAt = kNormalValidAt + 8, kFloatValidAt = kFloatNormalAt + 4;

template <typename T>
void put(std::vector<uint8_t>& bytes, size_t at, T value) {
    std::memcpy(bytes.data() + at, &value, sizeof(T));
}

template <typename T>
T get(const std::vector<uint8_t>& bytes, size_t at) {
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof(T));
    return value;
}

}  // namespace

void CpuGenerator::manualSeed(uint64_t seed) {
    seed_ = seed;
    seeded_ = true;
    state_[0] = static_cast<uint32_t>(seed & 0xffffffffU);
    for (int j = 1; j < kN; ++j)
        state_[static_cast<size_t>(j)] = 1812433253U * (state_[static_cast<size_t>(j - 1)] ^ (state_[static_cast<size_t>(j - 1)] >> 30)) +
                                         static_cast<uint32_t>(j);
    left_ = 1;
    next_ = 0;
    nextDoubleNormal.reset();
    nextFloatNormal.reset();
}

void CpuGenerator::twist() {
    left_ = kN;
    next_ = 0;
    for (int i = 0; i < kN; ++i) {
        const size_t at = static_cast<size_t>(i);
        state_[at] = state_[static_cast<size_t>((i + kM) % kN)] ^ twisted(state_[at], state_[static_cast<size_t>((i + 1) % kN)]);
    }
}

uint32_t CpuGenerator::random() {
    if (--left_ == 0) twist();
    uint32_t y = state_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    return y ^ (y >> 18);
}

uint64_t CpuGenerator::random64() {
    const uint64_t high = random();
    return (high << 32) | random();
}

std::vector<uint8_t> CpuGenerator::state() const {
    std::vector<uint8_t> bytes(kStateBytes, 0);
    put<uint64_t>(bytes, kSeedAt, seed_);
    put<int32_t>(bytes, kLeftAt, left_);
    put<int32_t>(bytes, kSeededAt, seeded_ ? 1 : 0);
    put<uint64_t>(bytes, kNextAt, next_);
    for (size_t i = 0; i < state_.size(); ++i) put<uint64_t>(bytes, kWordsAt + 8 * i, state_[i]);
    if (nextDoubleNormal) {
        put<double>(bytes, kNormalYAt, *nextDoubleNormal);
        put<int32_t>(bytes, kNormalValidAt, 1);
    }
    if (nextFloatNormal) {
        put<float>(bytes, kFloatNormalAt, *nextFloatNormal);
        bytes[kFloatValidAt] = 1;
    }
    return bytes;
}

void CpuGenerator::setState(const std::vector<uint8_t>& bytes) {
    if (bytes.size() != kStateBytes)
        fail(ErrorKind::Runtime, fmt::format("Expected a CPUGeneratorImplState of size {} but found the input RNG state size to be {}",
                                             kStateBytes, bytes.size()));
    const int32_t left = get<int32_t>(bytes, kLeftAt);
    const uint64_t next = get<uint64_t>(bytes, kNextAt);
    // mt19937::is_valid: seeded, 0 < left <= 624 and next <= 624.
    if (get<int32_t>(bytes, kSeededAt) == 0 || left <= 0 || left > kN || next > static_cast<uint64_t>(kN))
        fail(ErrorKind::Runtime, "Invalid mt19937 state");
    seed_ = get<uint64_t>(bytes, kSeedAt);
    seeded_ = true;
    left_ = left;
    next_ = static_cast<uint32_t>(next);
    for (size_t i = 0; i < state_.size(); ++i) state_[i] = static_cast<uint32_t>(get<uint64_t>(bytes, kWordsAt + 8 * i));
    nextDoubleNormal.reset();
    nextFloatNormal.reset();
    if (get<int32_t>(bytes, kNormalValidAt) != 0) nextDoubleNormal = get<double>(bytes, kNormalYAt);
    if (bytes[kFloatValidAt] != 0) nextFloatNormal = get<float>(bytes, kFloatNormalAt);
}

}  // namespace eng::tensor
