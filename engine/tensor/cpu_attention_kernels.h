// What the CPU flash attention's element-type paths share (cpu_attention.cpp, cpu_attention_bf16.cpp): the tile
// sizes, one task's problem geometry, the per-thread scratch buffers, and the bfloat16 paths' entry points.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace eng::tensor::cpuops::flash {

constexpr int kLanes = 16;
constexpr int kKeyBlock = 64;    // keys per score tile: four vectors
constexpr int kQueryBlock = 64;  // query rows per tile
constexpr int kRows = 4;         // rows per register tile: 4 x 4 accumulators of the 32 zmm registers
constexpr int64_t kMaxHeadDim = 256;
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

struct Operand {
    const void* data;
    int64_t batch, head, row, col;  // element strides
};

// What one task needs: operand geometry and the float32 scratch tiles of the thread running it.
struct Problem {
    Operand q, k, v;
    void* out;
    int64_t heads, L, S, E, Ev;
    bool causal;
    float scale;
};

struct Scratch {
    std::vector<float> keysT, staged, values, queries, scores, acc, rowMax, rowSum;
    // `count` floats starting on a 64-byte line (loads of whole vectors then never straddle two lines).
    static float* floats(std::vector<float>& buffer, int64_t count) {
        if (buffer.size() < static_cast<size_t>(count + kLanes)) buffer.resize(static_cast<size_t>(count + kLanes));
        const auto address = reinterpret_cast<uintptr_t>(buffer.data());
        return buffer.data() + (((address + 63) & ~uintptr_t{63}) - address) / sizeof(float);
    }
    // A query block's online-softmax state: `count` accumulators zeroed, each row's maximum at -inf and sum at 0.
    void startQueryBlock(float* accumulators, int64_t count) {
        std::fill(accumulators, accumulators + count, 0.0f);
        rowMax.assign(kQueryBlock, kNegInf);
        rowSum.assign(kQueryBlock, 0.0f);
    }
};

inline int64_t roundUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// Keys that queries [.., queryEnd) see: all S, or under a causal mask those up to the last query's position.
inline int64_t keysSeen(const Problem& pr, int64_t queryEnd) { return pr.causal ? std::min(pr.S, queryEnd) : pr.S; }


// Whether the bfloat16 kernels of cpu_attention_bf16.cpp run here: an AVX512-BF16 host at the AVX-512 level.
bool bf16KernelApplies();

// The bfloat16 kernels' AMX path: Hardware where CPUID and the kernel allow it (the default), Off (CWB_CPU_AMX=0:
// vdpbf16ps only), or Soft (CWB_CPU_AMX=soft): the tile code run on a scalar model of the tiles, on any AVX512-BF16
// host, to test it. setTilePath sets it for the process and returns the previous one.
enum class TilePath : uint8_t { Off, Hardware, Soft };
TilePath setTilePath(TilePath path);

// Queries [q0, q1) of (batch b, head h) for bfloat16 operands, written as [batch, L, heads, Ev]: AMX tiles where the
// host has them (and the head dims are multiples of 32 and 16), else vdpbf16ps. Only where bf16KernelApplies().
void attendChunkBf16(const Problem& pr, int64_t b, int64_t h, int64_t q0, int64_t q1, Scratch& s);

}  // namespace eng::tensor::cpuops::flash
