// The bytecode encoder (kernel_bytecode_encoder.h): expressions become register code in statement order, each
// subexpression read more than once evaluated once per statement as interpretKernel does, `where` as a branch (a
// masked load must not read when its mask is false), registers reused as soon as their value is dead.
#include "inductor/ir/kernel_bytecode_encoder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace eng::inductor {

namespace bc = bytecode;

namespace {

static_assert(static_cast<int>(bc::Op::Count) == static_cast<int>(ElementOp::ShiftRight) + 1, "bytecode ops follow ElementOp");
static_assert(static_cast<int>(bc::Storage::Float64) == static_cast<int>(DType::Float64) &&
                  static_cast<int>(bc::Storage::BFloat16) == static_cast<int>(DType::BFloat16),
              "bytecode storage codes follow DType");
static_assert(static_cast<int>(bc::Reduce::All) == static_cast<int>(ReductionOp::All), "bytecode reductions follow ReductionOp");

struct Refused {
    std::string why;
};

uint8_t storage(DType dtype) {
    if (tensor::isComplex(dtype)) throw Refused{"complex dtypes"};
    return static_cast<uint8_t>(dtype);
}

class Encoder {
public:
    Encoder(const Kernel& kernel, bc::Program& program) : kernel_(kernel), p_(program) {
        for (const Expr* e : sharedSubexpressions(kernel)) shared_.insert(e);
    }

    void run() {
        if (kernel_.isCombo()) throw Refused{"combo kernels"};
        if (kernel_.outerRanges.size() > bc::kMaxVars || kernel_.reductionRanges.size() > bc::kMaxVars) throw Refused{"loop variables"};
        if (kernel_.buffers.size() > bc::kMaxBuffers) throw Refused{"buffers"};
        if (kernel_.symbols.size() > bc::kMaxSymbols) throw Refused{"symbols"};
        if (kernel_.passes.size() > bc::kMaxPasses) throw Refused{"passes"};
        p_.outerVars = static_cast<int32_t>(kernel_.outerRanges.size());
        p_.reductionVars = static_cast<int32_t>(kernel_.reductionRanges.size());
        for (const KernelPass& pass : kernel_.passes) {
            bc::PassRange& range = p_.passes[p_.passCount++];
            range.overReductionRange = pass.overReductionRange;
            range.firstSlot = p_.slotCount;
            for (const Reduction& r : pass.reductions) addSlot(r);
            range.slotCount = p_.slotCount - range.firstSlot;
            range.begin = p_.instructionCount;
            for (const Store& s : pass.stores) store(s);
            for (const Reduction& r : pass.reductions) {
                const Reg value = expr(r.value);
                emit({bc::Code::Accumulate, 0, 0, value.r, 0, 0, 0, slotOf_.at(r.id)});
                endStatement(value);
            }
            range.end = p_.instructionCount;
        }
        p_.finalBegin = p_.instructionCount;
        for (const Store& s : kernel_.finalStores) store(s);
        p_.finalEnd = p_.instructionCount;
        p_.registerCount = next_;
    }

private:
    struct Reg {
        uint8_t r = 0;
        bool owned = false;  // freed by its reader; a cached shared subexpression's is freed at its scope's end
    };

    void addSlot(const Reduction& r) {
        if (p_.slotCount >= bc::kMaxSlots) throw Refused{"reductions"};
        bc::Slot& slot = p_.slots[p_.slotCount];
        slot.op = static_cast<uint8_t>(r.op);
        slot.dtype = storage(r.value->dtype);
        slot.overOuterRange = r.overOuterRange;
        if (r.overOuterRange) slot.outerOrdinal = static_cast<uint8_t>(p_.outerSlotCount++);
        slotOf_[r.id] = p_.slotCount++;
    }

    int emit(bc::Instruction in) {
        if (p_.instructionCount >= bc::kMaxInstructions) throw Refused{"instructions"};
        p_.code[p_.instructionCount] = in;
        return p_.instructionCount++;
    }

    int32_t constant(uint64_t bits) {
        auto [it, added] = constants_.try_emplace(bits, 0);
        if (!added) return it->second;
        if (constantCount_ >= bc::kMaxConstants) throw Refused{"constants"};
        p_.constants[constantCount_] = bits;
        return it->second = constantCount_++;
    }

    uint8_t allocate() {
        if (!free_.empty()) {
            const uint8_t r = free_.back();
            free_.pop_back();
            return r;
        }
        if (next_ >= bc::kMaxRegisters) throw Refused{"registers"};
        return static_cast<uint8_t>(next_++);
    }
    void release(Reg reg) {
        if (reg.owned) free_.push_back(reg.r);
    }
    // Forgets the shared subexpressions cached since `mark` (a branch ends, or a statement) and frees their registers.
    void popScope(size_t mark) {
        for (size_t k = mark; k < cached_.size(); ++k) free_.push_back(cached_[k].second);
        cached_.resize(mark);
    }
    void endStatement(Reg value) {
        release(value);
        popScope(0);
    }

    // An instruction whose result goes to a fresh register once its operands are read (it may reuse theirs).
    Reg result(bc::Instruction in, std::initializer_list<Reg> operands) {
        for (Reg operand : operands) release(operand);
        in.dst = allocate();
        emit(in);
        return {in.dst, true};
    }

    Reg index(const Index& ix) {
        switch (ix->op) {
            case IndexNode::Op::Constant: return result({bc::Code::Const, 0, 0, 0, 0, 0, 0, constant(static_cast<uint64_t>(ix->value))}, {});
            case IndexNode::Op::Var: return result({bc::Code::Var, 0, 0, 0, 0, 0, 0, static_cast<int32_t>(ix->value)}, {});
            case IndexNode::Op::Symbol: {
                auto found = std::find(kernel_.symbols.begin(), kernel_.symbols.end(), ix->symbol);
                if (found == kernel_.symbols.end()) throw std::logic_error("kernel index names unknown symbol " + ix->symbol);
                return result({bc::Code::Symbol, 0, 0, 0, 0, 0, 0, static_cast<int32_t>(found - kernel_.symbols.begin())}, {});
            }
            default: break;
        }
        const bc::Code code = ix->op == IndexNode::Op::Add ? bc::Code::IAdd
                              : ix->op == IndexNode::Op::Mul ? bc::Code::IMul
                              : ix->op == IndexNode::Op::FloorDiv ? bc::Code::IFloorDiv
                                                                  : bc::Code::IMod;
        const Reg a = index(ix->lhs), b = index(ix->rhs);
        return result({code, 0, 0, a.r, b.r, 0, 0, 0}, {a, b});
    }

    Reg expr(const ExprPtr& e) {
        const bool shared = shared_.count(e.get()) != 0;
        if (shared)
            for (auto it = cached_.rbegin(); it != cached_.rend(); ++it)
                if (it->first == e.get()) return {it->second, false};
        const Reg value = node(*e);
        if (!shared) return value;
        cached_.emplace_back(e.get(), value.r);
        return {value.r, false};
    }

    Reg node(const Expr& e) {
        const uint8_t dtype = storage(e.dtype);
        switch (e.kind) {
            case Expr::Kind::Load: {
                const Reg offset = index(e.index);
                return result({bc::Code::Load, dtype, 0, offset.r, 0, 0, 0, e.buffer}, {offset});
            }
            case Expr::Kind::Constant: {
                const uint64_t bits = bc::floating(dtype) ? std::bit_cast<uint64_t>(bc::roundTo(dtype, e.number)) : static_cast<uint64_t>(e.integer);
                return result({bc::Code::Const, dtype, 0, 0, 0, 0, 0, constant(bits)}, {});
            }
            case Expr::Kind::IndexValue: {
                const Reg value = index(e.index);
                return result({bc::Code::FromIndex, dtype, 0, value.r, 0, 0, 0, 0}, {value});
            }
            case Expr::Kind::Unary:
            case Expr::Kind::Binary: {
                const bool floatOperands = tensor::isFloating(e.a->dtype);
                const ElementTyping typing = elementTyping(e.op);
                const bool keepsIntegers = e.op == ElementOp::Floor || e.op == ElementOp::Ceil || e.op == ElementOp::Trunc;
                if (floatOperands ? typing == ElementTyping::Integral
                                  : (typing == ElementTyping::Floating || (typing == ElementTyping::Promote && !keepsIntegers)))
                    throw Refused{std::string(elementOpName(e.op)) + " of these operands"};
                const Reg a = expr(e.a);
                const Reg b = e.kind == Expr::Kind::Binary ? expr(e.b) : Reg{a.r, false};
                const uint8_t flags = (floatOperands ? bc::kFloatOperands : 0) | (isComparison(e.op) ? bc::kComparison : 0);
                const bc::Code code = e.kind == Expr::Kind::Binary ? bc::Code::Binary : bc::Code::Unary;
                return result({code, dtype, 0, a.r, b.r, flags, static_cast<uint16_t>(e.op), 0}, {a, b});
            }
            case Expr::Kind::Where: {
                // a ? b : c as a branch: only the chosen side runs (its loads may be out of range otherwise).
                const Reg condition = expr(e.a);
                const int skipTrue = emit({bc::Code::JumpIfZero, 0, 0, condition.r, 0, 0, 0, 0});
                release(condition);
                const uint8_t out = allocate();
                const size_t mark = cached_.size();
                const Reg whenTrue = expr(e.b);
                emit({bc::Code::Move, 0, out, whenTrue.r, 0, 0, 0, 0});
                release(whenTrue);
                popScope(mark);
                const int skipFalse = emit({bc::Code::Jump, 0, 0, 0, 0, 0, 0, 0});
                p_.code[skipTrue].imm = p_.instructionCount;
                const Reg whenFalse = expr(e.c);
                emit({bc::Code::Move, 0, out, whenFalse.r, 0, 0, 0, 0});
                release(whenFalse);
                popScope(mark);
                p_.code[skipFalse].imm = p_.instructionCount;
                return {out, true};
            }
            case Expr::Kind::Cast: {
                const Reg a = expr(e.a);
                return result({bc::Code::Cast, dtype, 0, a.r, 0, 0, storage(e.a->dtype), 0}, {a});
            }
            case Expr::Kind::ReductionValue: return result({bc::Code::Finished, dtype, 0, 0, 0, 0, 0, slotOf_.at(e.reduction)}, {});
        }
        throw std::logic_error("unknown expression kind");
    }

    void store(const Store& s) {
        const Reg value = expr(s.value);
        const Reg offset = index(s.index);
        const uint8_t dtype = storage(kernel_.buffers.at(static_cast<size_t>(s.buffer)).dtype);
        emit({bc::Code::Store, dtype, 0, offset.r, value.r, 0, 0, s.buffer});
        release(offset);
        endStatement(value);
    }

    const Kernel& kernel_;
    bc::Program& p_;
    std::unordered_set<const Expr*> shared_;
    std::vector<std::pair<const Expr*, uint8_t>> cached_;  // shared subexpressions computed in the open scopes
    std::vector<uint8_t> free_;
    int next_ = 0;
    std::map<int, int32_t> slotOf_;  // reduction id -> slot
    std::unordered_map<uint64_t, int32_t> constants_;
    int32_t constantCount_ = 0;
};

}  // namespace

std::unique_ptr<bc::Program> encodeKernelBytecode(const Kernel& kernel, std::string* whyNot) {
    auto program = std::make_unique<bc::Program>();
    try {
        Encoder(kernel, *program).run();
    } catch (const Refused& refused) {
        if (whyNot) *whyNot = "the bytecode holds no " + refused.why;
        return nullptr;
    }
    return program;
}

size_t bytecodeProgramBytes(const bc::Program& program) {
    return offsetof(bc::Program, code) + sizeof(bc::Instruction) * static_cast<size_t>(program.instructionCount);
}

bool bytecodeRunsInPieces(const Kernel& kernel) { return kernel.hasOuterRangeReductions() || !kernel.finalStores.empty(); }

bc::Launch bytecodeLaunch(const Kernel& kernel, const bc::Program* program, std::span<void* const> buffers, const SymbolValues& symbols) {
    bc::Launch l;
    l.program = program;
    std::copy(buffers.begin(), buffers.end(), l.buffers);
    for (size_t k = 0; k < kernel.symbols.size(); ++k) l.symbols[k] = symbols.at(kernel.symbols[k]);
    for (size_t d = 0; d < kernel.outerRanges.size(); ++d) l.outerPoints *= l.outerExtents[d] = evaluate(kernel.outerRanges[d], {}, symbols);
    for (size_t d = 0; d < kernel.reductionRanges.size(); ++d)
        l.reductionPoints *= l.reductionExtents[d] = evaluate(kernel.reductionRanges[d], {}, symbols);
    return l;
}

namespace {

// The GPU's combine of a group's partials (bytecode_interpreter.cu, combineInBlock) in its order: within each warp
// of 32 an xor butterfly over offsets 1, 2, 4, 8, 16 with the lower thread's partial first, then the warps' results
// in warp order; every thread ends with the total.
void combineGroupOnHost(const bc::Program& p, const bc::PassRange& pass, std::vector<bc::State>& states) {
    const size_t size = states.size();
    if (size == 1) return;
    std::vector<bc::Accumulator> before(size);
    for (int j = pass.firstSlot; j < pass.firstSlot + pass.slotCount; ++j) {
        const bc::Slot& slot = p.slots[j];
        if (slot.overOuterRange) continue;
        for (size_t offset = 1; offset < 32; offset <<= 1) {
            for (size_t t = 0; t < size; ++t) before[t] = states[t].acc[j];
            for (size_t t = 0; t < size; ++t) {
                const size_t lower = t & ~offset;
                bc::Accumulator acc = before[lower];
                bc::combine(acc, before[lower | offset], slot);
                states[t].acc[j] = acc;
            }
        }
        bc::Accumulator total = states[0].acc[j];
        for (size_t w = 32; w < size; w += 32) bc::combine(total, states[w].acc[j], slot);
        for (bc::State& s : states) s.acc[j] = total;
    }
}

// runPointInBlock of bytecode_interpreter.cu with the group's threads one after another.
void runPointInGroupOnHost(const bc::Launch& l, std::vector<bc::State>& states, int64_t point) {
    const bc::Program& p = *l.program;
    const int64_t size = static_cast<int64_t>(states.size());
    for (bc::State& s : states) bc::decode(point, l.outerExtents, p.outerVars, s.vars);
    for (int k = 0; k < p.passCount; ++k) {
        const bc::PassRange& pass = p.passes[k];
        if (!pass.overReductionRange) {
            bc::execute(l, states[0], pass.begin, pass.end);
            continue;
        }
        for (int64_t t = 0; t < size; ++t) bc::runShare(l, states[t], pass, t, size);
        combineGroupOnHost(p, pass, states);
        for (bc::State& s : states) bc::finishPass(p, s, pass);
    }
}

}  // namespace

void runBytecodeOnHost(const Kernel& kernel, const bc::Program& program, std::span<void* const> buffers, const SymbolValues& symbols,
                       int64_t pieces, int64_t groupSize) {
    if (groupSize != 1 && (groupSize % 32 != 0 || groupSize <= 0 || groupSize > 1024))
        throw std::invalid_argument("runBytecodeOnHost: a group is one thread or whole warps, at most 1024 threads");
    bc::Launch l = bytecodeLaunch(kernel, &program, buffers, symbols);
    std::vector<bc::State> states(static_cast<size_t>(groupSize));
    if (!bytecodeRunsInPieces(kernel)) {
        for (int64_t point = 0; point < l.outerPoints; ++point) {
            if (groupSize == 1 || !kernel.isReduction()) bc::runPoint(l, states[0], point);
            else runPointInGroupOnHost(l, states, point);
        }
        return;
    }
    l.pieces = std::clamp<int64_t>(pieces, 1, std::max<int64_t>(l.outerPoints, 1));
    std::vector<bc::Accumulator> partials(static_cast<size_t>(std::max(program.outerSlotCount, 1) * l.pieces * std::max<int64_t>(l.reductionPoints, 1)));
    l.partials = partials.data();
    for (int64_t piece = 0; piece < l.pieces; ++piece) {
        for (int64_t t = 0; t < groupSize; ++t) bc::startPiece(l, states[static_cast<size_t>(t)], piece, t, groupSize);
        int64_t begin, end;
        bc::pieceRows(l, piece, begin, end);
        for (int64_t point = begin; point < end; ++point) runPointInGroupOnHost(l, states, point);
    }
    for (int64_t point = 0; point < l.reductionPoints; ++point) bc::runFinish(l, states[0], point);
}

}  // namespace eng::inductor
