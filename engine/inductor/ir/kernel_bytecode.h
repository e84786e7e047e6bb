// A kernel of the kernel IR as compact bytecode, and its interpreter, written once for host C++ and CUDA device
// code: the GPU's first tier runs it from a module built with cwb (no compile and no JIT before a graph's first call),
// the CPU tests run the same loop against interpretKernel. Encoded by encodeKernelBytecode (kernel_bytecode.cpp).
#pragma once

#include <cmath>
#include <cstdint>

#include "tensor/half.h"

#if defined(__CUDACC__)
#define CWB_BYTECODE_HD __host__ __device__
#define CWB_BYTECODE_SHARED __noinline__  // the entry points share one copy of the loop
#else
#define CWB_BYTECODE_HD
#define CWB_BYTECODE_SHARED
#endif

namespace eng::inductor::bytecode {

// Limits of one program (a kernel past them is not encoded and runs another tier).
constexpr int kMaxInstructions = 1024;
constexpr int kMaxConstants = 256;
constexpr int kMaxRegisters = 48;
constexpr int kMaxPasses = 8;
constexpr int kMaxSlots = 8;  // reductions of a kernel
constexpr int kMaxBuffers = 32;
constexpr int kMaxSymbols = 16;
constexpr int kMaxVars = 8;  // outer or reduction loop variables each

// tensor::DType's numbering of the dtypes kernels hold (the encoder checks they agree).
enum class Storage : uint8_t { Bool, UInt8, Int8, Int16, Int32, Int64, Float16, BFloat16, Float32, Float64 };
CWB_BYTECODE_HD constexpr bool floating(uint8_t storage) { return storage >= uint8_t(Storage::Float16); }

// The element ops in inductor::ElementOp's order, from the same .def files.
enum class Op : uint16_t {
#define CWB_UNARY_MATH(Name, function, integers, llvm) Name,
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) Name,
#define CWB_ELEMENTWISE_BINARY(Name, function, typing, floatForm, integerForm, ...) Name,
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    Count
};
// ops/elementwise.def's typing column.
enum class Typing { Same, Promote, Floating, Integral, Bool };
// ops/reductions.def's rows, in inductor::ReductionOp's order.
enum class Reduce : uint8_t {
#define CWB_REDUCTION(Name, function, Result) Name,
#include "ops/reductions.def"
#undef CWB_REDUCTION
};

enum class Code : uint8_t {
    Const,           // dst = constants[imm] (a double's bits for floating dtypes)
    Var,             // dst.i = loop variable imm
    Symbol,          // dst.i = symbol imm
    IAdd, IMul, IFloorDiv, IMod,  // index arithmetic on .i (floor division and modulo as kernel_ir's evaluate)
    Load,            // dst = buffer imm [a.i] of `dtype`
    FromIndex,       // dst = a.i as `dtype`
    Unary, Binary,   // dst = op(a[, b]) with result `dtype`; flags: kFloatOperands, kComparison
    Cast,            // dst = a (of dtype `op`) converted to `dtype`
    JumpIfZero,      // if a.i == 0: pc = imm
    Jump,            // pc = imm
    Move,            // dst = a
    Finished,        // dst = the finished value of reduction slot imm
    Store,           // buffer imm [a.i] = b as `dtype`
    Accumulate,      // reduction slot imm accumulates a
};
constexpr uint8_t kFloatOperands = 1, kComparison = 2;

struct Instruction {
    Code code = Code::Const;
    uint8_t dtype = 0;
    uint8_t dst = 0, a = 0, b = 0;
    uint8_t flags = 0;
    uint16_t op = 0;
    int32_t imm = 0;
};

struct PassRange {
    int32_t begin = 0, end = 0;  // instructions run once per point (of the reduction range when overReductionRange)
    int32_t overReductionRange = 0;
    int32_t firstSlot = 0, slotCount = 0;  // this pass's reductions
};

struct Slot {
    uint8_t op = 0;         // Reduce
    uint8_t dtype = 0;      // the accumulator's (the reduced value's) Storage
    uint8_t overOuterRange = 0;
    uint8_t outerOrdinal = 0;  // among the outer-range reductions: its partials in the workspace
};

struct Program {
    int32_t outerVars = 0, reductionVars = 0, passCount = 0, slotCount = 0, outerSlotCount = 0;
    int32_t instructionCount = 0, registerCount = 0;
    int32_t finalBegin = 0, finalEnd = 0;  // Kernel::finalStores, once per point of the reduction range
    PassRange passes[kMaxPasses];
    Slot slots[kMaxSlots];
    uint64_t constants[kMaxConstants];
    Instruction code[kMaxInstructions];  // last, so that a program's used prefix can be copied alone
};

union Value {
    double f;
    int64_t i;
};

struct Accumulator {
    Value value;
    int64_t position;
    int64_t started;
};

// One launch: the program, the kernel's parameters and its ranges evaluated for the call.
struct Launch {
    const Program* program = nullptr;
    void* buffers[kMaxBuffers] = {};
    int64_t symbols[kMaxSymbols] = {};
    int64_t outerExtents[kMaxVars] = {}, reductionExtents[kMaxVars] = {};
    int64_t outerPoints = 1, reductionPoints = 1;
    // Outer-range reductions: per outer-range reduction, per piece, per point of the reduction range.
    Accumulator* partials = nullptr;
    int64_t pieces = 1;
};

// What one thread holds while it runs a point.
struct State {
    Value regs[kMaxRegisters];
    int64_t vars[2 * kMaxVars];
    Accumulator acc[kMaxSlots];
    Value finished[kMaxSlots];
    int64_t reductionPoint;  // the flat point of the reduction range (positions, partials)
    int64_t piece;
};

// ---------------------------------------------------------------------------------------------------------
// Scalar semantics: interpretKernel's (doubles for floating dtypes, rounded to the dtype after every op; int64
// wrapped to the dtype), so that the host build of this loop gives the reference interpreter's bits.

#if defined(__CUDA_ARCH__)
#define CWB_BYTECODE_MATH(function) ::function
#else
#define CWB_BYTECODE_MATH(function) std::function
#endif
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    CWB_BYTECODE_HD inline double function(double x) { return CWB_BYTECODE_MATH(function)(x); }
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
CWB_BYTECODE_HD inline double fabs(double x) { return CWB_BYTECODE_MATH(fabs)(x); }
CWB_BYTECODE_HD inline double rint(double x) { return CWB_BYTECODE_MATH(rint)(x); }
CWB_BYTECODE_HD inline double pow(double x, double y) { return CWB_BYTECODE_MATH(pow)(x, y); }
CWB_BYTECODE_HD inline double atan2(double x, double y) { return CWB_BYTECODE_MATH(atan2)(x, y); }
CWB_BYTECODE_HD inline double fmod(double x, double y) { return CWB_BYTECODE_MATH(fmod)(x, y); }
#undef CWB_BYTECODE_MATH

CWB_BYTECODE_HD inline bool isNan(double x) { return x != x; }
template <typename T>
CWB_BYTECODE_HD T select(bool condition, T whenTrue, T whenFalse) {
    return condition ? whenTrue : whenFalse;
}
CWB_BYTECODE_HD inline double maximum(double a, double b) { return isNan(a) || isNan(b) ? a + b : (a < b ? b : a); }
CWB_BYTECODE_HD inline double minimum(double a, double b) { return isNan(a) || isNan(b) ? a + b : (b < a ? b : a); }
CWB_BYTECODE_HD inline double floordiv(double a, double b) { return floor(a / b); }
CWB_BYTECODE_HD inline double pymod(double a, double b) {
    const double r = fmod(a, b);
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
// Integer division by zero gives 0 here (the reference interpreter raises ZeroDivisionError; generated code gives 0).
CWB_BYTECODE_HD inline int64_t idiv(int64_t a, int64_t b) { return b == 0 ? 0 : b == -1 ? -a : a / b; }
CWB_BYTECODE_HD inline int64_t ifloordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return -a;
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
CWB_BYTECODE_HD inline int64_t imod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    const int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
CWB_BYTECODE_HD inline int64_t irem(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
CWB_BYTECODE_HD inline int64_t ipow(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 == 0 ? 1 : -1) : 0;
    int64_t result = 1;
    for (int64_t k = 0; k < b; ++k) result = static_cast<int64_t>(static_cast<uint64_t>(result) * static_cast<uint64_t>(a));
    return result;
}
CWB_BYTECODE_HD inline int64_t ishl(int64_t a, int64_t b) { return b < 0 || b >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(a) << b); }
CWB_BYTECODE_HD inline int64_t ishr(int64_t a, int64_t b) { return b < 0 || b >= 64 ? (a < 0 ? -1 : 0) : a >> b; }

CWB_BYTECODE_HD inline double roundTo(uint8_t dtype, double value) {
    switch (static_cast<Storage>(dtype)) {
        case Storage::Float32: return static_cast<float>(value);
        case Storage::Float16: return tensor::halfBitsToFloat(tensor::floatToHalfBits(static_cast<float>(value)));
        case Storage::BFloat16: return tensor::bfloat16BitsToFloat(tensor::floatToBFloat16Bits(static_cast<float>(value)));
        default: return value;
    }
}

CWB_BYTECODE_HD inline int64_t wrapTo(uint8_t dtype, int64_t value) {
    switch (static_cast<Storage>(dtype)) {
        case Storage::Bool: return value != 0;
        case Storage::UInt8: return static_cast<uint8_t>(value);
        case Storage::Int8: return static_cast<int8_t>(value);
        case Storage::Int16: return static_cast<int16_t>(value);
        case Storage::Int32: return static_cast<int32_t>(value);
        default: return value;
    }
}

CWB_BYTECODE_HD inline Value readElement(const void* base, uint8_t dtype, int64_t offset) {
    Value v{};
    switch (static_cast<Storage>(dtype)) {
        case Storage::Bool:
        case Storage::UInt8: v.i = static_cast<const uint8_t*>(base)[offset]; break;
        case Storage::Int8: v.i = static_cast<const int8_t*>(base)[offset]; break;
        case Storage::Int16: v.i = static_cast<const int16_t*>(base)[offset]; break;
        case Storage::Int32: v.i = static_cast<const int32_t*>(base)[offset]; break;
        case Storage::Int64: v.i = static_cast<const int64_t*>(base)[offset]; break;
        case Storage::Float16: v.f = tensor::halfBitsToFloat(static_cast<const uint16_t*>(base)[offset]); break;
        case Storage::BFloat16: v.f = tensor::bfloat16BitsToFloat(static_cast<const uint16_t*>(base)[offset]); break;
        case Storage::Float32: v.f = static_cast<const float*>(base)[offset]; break;
        case Storage::Float64: v.f = static_cast<const double*>(base)[offset]; break;
    }
    return v;
}

CWB_BYTECODE_HD inline void writeElement(void* base, uint8_t dtype, int64_t offset, Value v) {
    switch (static_cast<Storage>(dtype)) {
        case Storage::Bool: static_cast<uint8_t*>(base)[offset] = v.i != 0; break;
        case Storage::UInt8: static_cast<uint8_t*>(base)[offset] = static_cast<uint8_t>(v.i); break;
        case Storage::Int8: static_cast<int8_t*>(base)[offset] = static_cast<int8_t>(v.i); break;
        case Storage::Int16: static_cast<int16_t*>(base)[offset] = static_cast<int16_t>(v.i); break;
        case Storage::Int32: static_cast<int32_t*>(base)[offset] = static_cast<int32_t>(v.i); break;
        case Storage::Int64: static_cast<int64_t*>(base)[offset] = v.i; break;
        case Storage::Float16: static_cast<uint16_t*>(base)[offset] = tensor::floatToHalfBits(static_cast<float>(v.f)); break;
        case Storage::BFloat16: static_cast<uint16_t*>(base)[offset] = tensor::floatToBFloat16Bits(static_cast<float>(v.f)); break;
        case Storage::Float32: static_cast<float*>(base)[offset] = static_cast<float>(v.f); break;
        case Storage::Float64: static_cast<double*>(base)[offset] = v.f; break;
    }
}

// An op on floating operands (b unused for unary ops); predicates give 0 or 1.
CWB_BYTECODE_HD inline double floatForm(Op op, double a, [[maybe_unused]] double b) {
    using T = double;
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case Op::Name: return function(a);
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case Op::Name:                                                              \
        if (Typing::typing == Typing::Integral) break;                          \
        return static_cast<double>(floatForm);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
        default: break;
    }
    return 0;  // not encoded (encodeKernelBytecode refuses integral-only ops on floats)
}

// The same on integral operands, in int64 (bool operands are 0/1).
CWB_BYTECODE_HD inline int64_t integerForm(Op op, int64_t a, [[maybe_unused]] int64_t b) {
    using T = int64_t;
    switch (op) {
        case Op::Floor:  // the rounding functions keep integers (ops/unary_math.def's Keep)
        case Op::Ceil:
        case Op::Trunc: return a;
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...)          \
    case Op::Name:                                                                       \
        if (Typing::typing == Typing::Promote || Typing::typing == Typing::Floating) break; \
        return static_cast<int64_t>(integerForm);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
        default: break;
    }
    return 0;  // not encoded
}

CWB_BYTECODE_HD inline Value castValue(Value a, uint8_t from, uint8_t to) {
    Value out{};
    const bool fromFloat = floating(from), toFloat = floating(to);
    if (fromFloat && toFloat) out.f = roundTo(to, a.f);
    else if (!fromFloat && toFloat) out.f = roundTo(to, static_cast<double>(a.i));
    else if (fromFloat) {
        if (to == uint8_t(Storage::Bool)) out.i = a.f != 0;
        else out.i = wrapTo(to, (a.f > -9.3e18 && a.f < 9.3e18) ? static_cast<int64_t>(a.f) : INT64_MIN);
    } else out.i = wrapTo(to, a.i);
    return out;
}

CWB_BYTECODE_HD inline void accumulate(Accumulator& acc, const Slot& slot, Value v, int64_t position) {
    const bool isFloat = floating(slot.dtype);
    if (!acc.started) {
        acc.value = v;
        acc.position = position;
        acc.started = 1;
        return;
    }
    switch (static_cast<Reduce>(slot.op)) {
        case Reduce::Sum:
            if (isFloat) acc.value.f = roundTo(slot.dtype, acc.value.f + v.f);
            else acc.value.i = wrapTo(slot.dtype, static_cast<int64_t>(static_cast<uint64_t>(acc.value.i) + static_cast<uint64_t>(v.i)));
            break;
        case Reduce::Prod:
            if (isFloat) acc.value.f = roundTo(slot.dtype, acc.value.f * v.f);
            else acc.value.i = wrapTo(slot.dtype, static_cast<int64_t>(static_cast<uint64_t>(acc.value.i) * static_cast<uint64_t>(v.i)));
            break;
        case Reduce::Max:
            if (isFloat) acc.value.f = maximum(acc.value.f, v.f);
            else acc.value.i = acc.value.i < v.i ? v.i : acc.value.i;
            break;
        case Reduce::Min:
            if (isFloat) acc.value.f = minimum(acc.value.f, v.f);
            else acc.value.i = v.i < acc.value.i ? v.i : acc.value.i;
            break;
        case Reduce::ArgMax:
        case Reduce::ArgMin: {
            const bool wantMax = static_cast<Reduce>(slot.op) == Reduce::ArgMax;
            bool better;
            if (isFloat) better = isNan(acc.value.f) ? false : isNan(v.f) ? true : wantMax ? v.f > acc.value.f : v.f < acc.value.f;
            else better = wantMax ? v.i > acc.value.i : v.i < acc.value.i;
            if (better) {
                acc.value = v;
                acc.position = position;
            }
            break;
        }
        case Reduce::Any: acc.value.i = acc.value.i || v.i; break;
        case Reduce::All: acc.value.i = acc.value.i && v.i; break;
    }
}

// Merges `other`, a partial over other points of the same range, into `acc`: what accumulating both ranges' points
// in one thread gives, up to the order of sums. Symmetric but for rounding order: the group combines below call it with
// the lower thread's partial as `acc`, so every thread of a group ends with the same bits. Arg reductions take the
// first position on ties (and the first NaN), as the reference's sequential scan does.
CWB_BYTECODE_HD inline void combine(Accumulator& acc, const Accumulator& other, const Slot& slot) {
    if (!other.started) return;
    if (!acc.started) {
        acc = other;
        return;
    }
    const Reduce op = static_cast<Reduce>(slot.op);
    if (op != Reduce::ArgMax && op != Reduce::ArgMin) {
        accumulate(acc, slot, other.value, other.position);
        return;
    }
    const bool earlier = other.position < acc.position;
    bool take;
    if (floating(slot.dtype)) {
        const bool accNan = isNan(acc.value.f), otherNan = isNan(other.value.f);
        if (accNan || otherNan) take = otherNan && (!accNan || earlier);
        else if (other.value.f == acc.value.f) take = earlier;
        else take = op == Reduce::ArgMax ? other.value.f > acc.value.f : other.value.f < acc.value.f;
    } else {
        if (other.value.i == acc.value.i) take = earlier;
        else take = op == Reduce::ArgMax ? other.value.i > acc.value.i : other.value.i < acc.value.i;
    }
    if (take) {
        acc.value = other.value;
        acc.position = other.position;
    }
}

// A finished reduction's value: the identity for an empty range (0 for max, min and the arg reductions, of which
// the reference interpreter raises an error).
CWB_BYTECODE_HD inline Value finish(const Accumulator& acc, const Slot& slot) {
    Value out = acc.value;
    const Reduce op = static_cast<Reduce>(slot.op);
    if (!acc.started) {
        out.i = 0;
        if (floating(slot.dtype)) out.f = op == Reduce::Prod ? 1 : 0;
        else out.i = op == Reduce::Prod || op == Reduce::All ? 1 : 0;
    }
    if (op == Reduce::ArgMax || op == Reduce::ArgMin) out.i = acc.position;
    return out;
}

// ---------------------------------------------------------------------------------------------------------
// The loop.

CWB_BYTECODE_HD inline void decode(int64_t flat, const int64_t* extents, int count, int64_t* vars) {
    for (int d = count; d-- > 0;) {
        vars[d] = flat % extents[d];
        flat /= extents[d];
    }
}

CWB_BYTECODE_HD inline Accumulator& partialOf(const Launch& l, const Slot& slot, const State& s, int64_t reductionPoint) {
    return l.partials[(static_cast<int64_t>(slot.outerOrdinal) * l.pieces + s.piece) * l.reductionPoints + reductionPoint];
}

CWB_BYTECODE_HD CWB_BYTECODE_SHARED inline void execute(const Launch& l, State& s, int begin, int end) {
    const Program& p = *l.program;
    Value* r = s.regs;
    for (int pc = begin; pc < end;) {
        const Instruction in = p.code[pc++];
        switch (in.code) {
            case Code::Const: r[in.dst].i = static_cast<int64_t>(p.constants[in.imm]); break;
            case Code::Var: r[in.dst].i = s.vars[in.imm]; break;
            case Code::Symbol: r[in.dst].i = l.symbols[in.imm]; break;
            case Code::IAdd: r[in.dst].i = r[in.a].i + r[in.b].i; break;
            case Code::IMul: r[in.dst].i = r[in.a].i * r[in.b].i; break;
            case Code::IFloorDiv: {
                const int64_t a = r[in.a].i, b = r[in.b].i, q = a / b;
                r[in.dst].i = (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
                break;
            }
            case Code::IMod: {
                const int64_t a = r[in.a].i, b = r[in.b].i, m = a % b;
                r[in.dst].i = (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
                break;
            }
            case Code::Load: r[in.dst] = readElement(l.buffers[in.imm], in.dtype, r[in.a].i); break;
            case Code::FromIndex:
                if (floating(in.dtype)) r[in.dst].f = roundTo(in.dtype, static_cast<double>(r[in.a].i));
                else r[in.dst].i = wrapTo(in.dtype, r[in.a].i);
                break;
            case Code::Unary:
            case Code::Binary: {
                const Value a = r[in.a], b = r[in.b];
                if (in.flags & kFloatOperands) {
                    const double v = floatForm(static_cast<Op>(in.op), a.f, b.f);
                    if (in.flags & kComparison) r[in.dst].i = v != 0;
                    else r[in.dst].f = roundTo(in.dtype, v);
                } else {
                    r[in.dst].i = wrapTo(in.dtype, integerForm(static_cast<Op>(in.op), a.i, b.i));
                }
                break;
            }
            case Code::Cast: r[in.dst] = castValue(r[in.a], static_cast<uint8_t>(in.op), in.dtype); break;
            case Code::JumpIfZero:
                if (r[in.a].i == 0) pc = in.imm;
                break;
            case Code::Jump: pc = in.imm; break;
            case Code::Move: r[in.dst] = r[in.a]; break;
            case Code::Finished: r[in.dst] = s.finished[in.imm]; break;
            case Code::Store: writeElement(l.buffers[in.imm], in.dtype, r[in.a].i, r[in.b]); break;
            case Code::Accumulate: {
                const Slot& slot = p.slots[in.imm];
                Accumulator& acc = slot.overOuterRange ? partialOf(l, slot, s, s.reductionPoint) : s.acc[in.imm];
                accumulate(acc, slot, r[in.a], s.reductionPoint);
                break;
            }
        }
    }
}

// Thread `rank` of `size` sharing a pass over the reduction range: points rank, rank + size, ... (consecutive threads
// read consecutive points: coalesced), its own partials of the pass's reductions in s.acc.
CWB_BYTECODE_HD inline void runShare(const Launch& l, State& s, const PassRange& pass, int64_t rank, int64_t size) {
    const Program& p = *l.program;
    for (int j = pass.firstSlot; j < pass.firstSlot + pass.slotCount; ++j) s.acc[j].started = 0;
    for (int64_t q = rank; q < l.reductionPoints; q += size) {
        decode(q, l.reductionExtents, p.reductionVars, s.vars + p.outerVars);
        s.reductionPoint = q;
        execute(l, s, pass.begin, pass.end);
    }
}

CWB_BYTECODE_HD inline void finishPass(const Program& p, State& s, const PassRange& pass) {
    for (int j = pass.firstSlot; j < pass.firstSlot + pass.slotCount; ++j)
        if (!p.slots[j].overOuterRange) s.finished[j] = finish(s.acc[j], p.slots[j]);
}

// Every pass of outer point `point` (the reference interpreter's order).
CWB_BYTECODE_HD inline void runPoint(const Launch& l, State& s, int64_t point) {
    const Program& p = *l.program;
    decode(point, l.outerExtents, p.outerVars, s.vars);
    for (int k = 0; k < p.passCount; ++k) {
        const PassRange& pass = p.passes[k];
        if (!pass.overReductionRange) {
            execute(l, s, pass.begin, pass.end);
            continue;
        }
        runShare(l, s, pass, 0, 1);
        finishPass(p, s, pass);
    }
}

// Clears piece `piece`'s partials of the reduction points that thread `rank` of `size` owns (rank, rank + size, ...).
CWB_BYTECODE_HD inline void startPiece(const Launch& l, State& s, int64_t piece, int64_t rank, int64_t size) {
    const Program& p = *l.program;
    s.piece = piece;
    for (int j = 0; j < p.slotCount; ++j)
        if (p.slots[j].overOuterRange)
            for (int64_t q = rank; q < l.reductionPoints; q += size) partialOf(l, p.slots[j], s, q).started = 0;
}

// The outer points of piece `piece`: [begin, end).
CWB_BYTECODE_HD inline void pieceRows(const Launch& l, int64_t piece, int64_t& begin, int64_t& end) {
    const int64_t chunk = (l.outerPoints + l.pieces - 1) / l.pieces;
    begin = piece * chunk < l.outerPoints ? piece * chunk : l.outerPoints;
    end = begin + chunk < l.outerPoints ? begin + chunk : l.outerPoints;
}

// Point `point` of the reduction range after every piece: the pieces' partials combined in order, then finalStores.
CWB_BYTECODE_HD inline void runFinish(const Launch& l, State& s, int64_t point) {
    const Program& p = *l.program;
    for (int j = 0; j < p.slotCount; ++j) {
        if (!p.slots[j].overOuterRange) continue;
        Accumulator combined{};
        combined.started = 0;
        for (s.piece = 0; s.piece < l.pieces; ++s.piece) {
            const Accumulator& part = partialOf(l, p.slots[j], s, point);
            if (part.started) accumulate(combined, p.slots[j], part.value, part.position);
        }
        s.finished[j] = finish(combined, p.slots[j]);
    }
    for (int d = 0; d < p.outerVars; ++d) s.vars[d] = 0;
    decode(point, l.reductionExtents, p.reductionVars, s.vars + p.outerVars);
    s.reductionPoint = point;
    execute(l, s, p.finalBegin, p.finalEnd);
}

}  // namespace eng::inductor::bytecode
