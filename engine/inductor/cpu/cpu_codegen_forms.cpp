// The elementwise ops of ops/unary_math.def and ops/elementwise.def as LLVM IR: each row's form is evaluated over
// IrScalar, whose operators and helpers build IR with kernel_interpreter.cpp's semantics (float32 math in float,
// half/bfloat16 rounded after every op, integers at their own width, unsigned compares for uint8 and bool).
#include <stdexcept>

#include <llvm/IR/Intrinsics.h>

#include "inductor/cpu/cpu_codegen_internal.h"

namespace eng::inductor::cpu::detail {

using llvm::Value;

namespace {

/// What the form being built operates on: its emitter and the operands' register type.
struct FormScope {
    KernelEmitter& emitter;
    llvm::IRBuilder<>& b;
    llvm::Type* type;
    bool isFloat;
    bool isUnsigned;
};
thread_local FormScope* currentForm = nullptr;

FormScope& scope() {
    if (!currentForm) throw std::logic_error("elementwise form built outside KernelEmitter::elementOp");
    return *currentForm;
}

/// A predicate's value (i1).
struct IrBool {
    Value* v;
};

/// A value of the operands' type T. T(x) is a constant of that type, T(predicate) its 0 or 1.
struct IrScalar {
    Value* v;
    explicit IrScalar(Value* value) : v(value) {}
    IrScalar(int constant) : IrScalar(static_cast<double>(constant)) {}  // NOLINT(google-explicit-constructor): T(0)
    IrScalar(double constant) {  // NOLINT(google-explicit-constructor): the forms write T(1)
        FormScope& s = scope();
        v = s.isFloat ? llvm::ConstantFP::get(s.type, constant)
                      : llvm::ConstantInt::get(s.type, static_cast<uint64_t>(static_cast<int64_t>(constant)), true);
    }
    IrScalar(IrBool predicate) {  // NOLINT(google-explicit-constructor)
        FormScope& s = scope();
        v = s.isFloat ? s.b.CreateUIToFP(predicate.v, s.type) : s.b.CreateZExt(predicate.v, s.type);
    }
};

IrScalar operator+(IrScalar x, IrScalar y) { return IrScalar(scope().isFloat ? scope().b.CreateFAdd(x.v, y.v) : scope().b.CreateAdd(x.v, y.v)); }
IrScalar operator-(IrScalar x, IrScalar y) { return IrScalar(scope().isFloat ? scope().b.CreateFSub(x.v, y.v) : scope().b.CreateSub(x.v, y.v)); }
IrScalar operator*(IrScalar x, IrScalar y) { return IrScalar(scope().isFloat ? scope().b.CreateFMul(x.v, y.v) : scope().b.CreateMul(x.v, y.v)); }
IrScalar operator/(IrScalar x, IrScalar y) {
    if (!scope().isFloat) throw std::logic_error("integer forms divide with idiv");
    return IrScalar(scope().b.CreateFDiv(x.v, y.v));
}
IrScalar operator-(IrScalar x) { return IrScalar(scope().isFloat ? scope().b.CreateFNeg(x.v) : scope().b.CreateNeg(x.v)); }
IrScalar operator&(IrScalar x, IrScalar y) { return IrScalar(scope().b.CreateAnd(x.v, y.v)); }
IrScalar operator|(IrScalar x, IrScalar y) { return IrScalar(scope().b.CreateOr(x.v, y.v)); }
IrScalar operator^(IrScalar x, IrScalar y) { return IrScalar(scope().b.CreateXor(x.v, y.v)); }
IrScalar operator~(IrScalar x) { return IrScalar(scope().b.CreateNot(x.v)); }

// Ordered float compares but !=, which holds for NaN (as C's); unsigned integer compares for uint8 and bool.
IrBool compare(llvm::CmpInst::Predicate floatPredicate, llvm::CmpInst::Predicate signedPredicate,
               llvm::CmpInst::Predicate unsignedPredicate, IrScalar x, IrScalar y) {
    FormScope& s = scope();
    const auto predicate = s.isFloat ? floatPredicate : (s.isUnsigned ? unsignedPredicate : signedPredicate);
    return {s.isFloat ? s.b.CreateFCmp(predicate, x.v, y.v) : s.b.CreateICmp(predicate, x.v, y.v)};
}
using P = llvm::CmpInst::Predicate;
IrBool operator==(IrScalar x, IrScalar y) { return compare(P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ, x, y); }
IrBool operator!=(IrScalar x, IrScalar y) { return compare(P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE, x, y); }
IrBool operator<(IrScalar x, IrScalar y) { return compare(P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT, x, y); }
IrBool operator<=(IrScalar x, IrScalar y) { return compare(P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE, x, y); }
IrBool operator>(IrScalar x, IrScalar y) { return compare(P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT, x, y); }
IrBool operator>=(IrScalar x, IrScalar y) { return compare(P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE, x, y); }
IrBool operator&&(IrBool x, IrBool y) { return {scope().b.CreateAnd(x.v, y.v)}; }
IrBool operator||(IrBool x, IrBool y) { return {scope().b.CreateOr(x.v, y.v)}; }
IrBool operator!=(IrBool x, IrBool y) { return {scope().b.CreateXor(x.v, y.v)}; }
[[maybe_unused]] IrBool operator!(IrBool x) { return {scope().b.CreateNot(x.v)}; }

IrScalar select(IrBool condition, IrScalar whenTrue, IrScalar whenFalse) {
    return IrScalar(scope().b.CreateSelect(condition.v, whenTrue.v, whenFalse.v));
}

IrScalar intrinsic(llvm::Intrinsic::ID id, IrScalar x) { return IrScalar(scope().b.CreateUnaryIntrinsic(id, x.v)); }
IrScalar intrinsic(llvm::Intrinsic::ID id, IrScalar x, IrScalar y) { return IrScalar(scope().b.CreateBinaryIntrinsic(id, x.v, y.v)); }

// The math functions of ops/unary_math.def: LLVM intrinsics or libm calls, as its `llvm` column says.
#define CWB_LLVM_MATH_Intrinsic(function) intrinsic(llvm::Intrinsic::function, x)
#define CWB_LLVM_MATH_Call(function) IrScalar(scope().emitter.callMath(#function "f", #function, x.v))
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    IrScalar function(IrScalar x) { return CWB_LLVM_MATH_##llvm(function); }
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#undef CWB_LLVM_MATH_Call
#undef CWB_LLVM_MATH_Intrinsic

IrScalar fabs(IrScalar x) { return intrinsic(llvm::Intrinsic::fabs, x); }
IrScalar rint(IrScalar x) { return intrinsic(llvm::Intrinsic::roundeven, x); }
IrScalar pow(IrScalar x, IrScalar y) { return intrinsic(llvm::Intrinsic::pow, x, y); }
IrScalar atan2(IrScalar x, IrScalar y) { return IrScalar(scope().emitter.callMath("atan2f", "atan2", x.v, y.v)); }
IrScalar maximum(IrScalar x, IrScalar y) { return intrinsic(llvm::Intrinsic::maximum, x, y); }
IrScalar minimum(IrScalar x, IrScalar y) { return intrinsic(llvm::Intrinsic::minimum, x, y); }

IrScalar floordiv(IrScalar x, IrScalar y) {
    // floor of the quotient in double as the interpreter does: a float quotient could round up to an integer and
    // floor one too high.
    FormScope& s = scope();
    if (s.type->isDoubleTy()) return intrinsic(llvm::Intrinsic::floor, IrScalar(s.b.CreateFDiv(x.v, y.v)));
    Value* q = s.b.CreateFDiv(s.b.CreateFPExt(x.v, s.b.getDoubleTy()), s.b.CreateFPExt(y.v, s.b.getDoubleTy()));
    return IrScalar(s.b.CreateFPTrunc(s.b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, q), s.type));
}

IrScalar fmod(IrScalar x, IrScalar y) { return IrScalar(scope().b.CreateFRem(x.v, y.v)); }

IrScalar pymod(IrScalar x, IrScalar y) {
    const IrScalar r(scope().b.CreateFRem(x.v, y.v));
    const IrBool fix{scope().b.CreateFCmpONE(r.v, IrScalar(0.0).v)};
    return select(fix && ((r < IrScalar(0.0)) != (y < IrScalar(0.0))), r + y, r);
}

/// An integer operand as int64 (zero-extended for uint8 and bool), where the interpreter computes.
Value* toInt64(IrScalar x) {
    FormScope& s = scope();
    return s.isUnsigned ? s.b.CreateZExt(x.v, s.b.getInt64Ty()) : s.b.CreateSExt(x.v, s.b.getInt64Ty());
}

enum class Division { Truncate, Floor, Modulo, Remainder };

// Integer /, // and %: the interpreter divides in int64 (and throws on zero). Dividing narrow types in int64 keeps
// INT_MIN / -1 exact, and a guarded divisor keeps select-both-arms code (where(b != 0, a // b, 0)) from trapping.
IrScalar integerDivision(Division kind, IrScalar x, IrScalar y) {
    FormScope& s = scope();
    llvm::IRBuilder<>& b = s.b;
    Value* a = toInt64(x);
    Value* d = toInt64(y);
    Value* zero = b.getInt64(0);
    Value* minusOne = b.CreateICmpEQ(d, b.getInt64(static_cast<uint64_t>(-1)));
    Value* safe = b.CreateSelect(b.CreateOr(b.CreateICmpEQ(d, zero), minusOne), b.getInt64(1), d);
    Value* q = s.isUnsigned ? b.CreateUDiv(a, safe) : b.CreateSDiv(a, safe);
    Value* rem = s.isUnsigned ? b.CreateURem(a, safe) : b.CreateSRem(a, safe);
    if (!s.isUnsigned) {
        q = b.CreateSelect(minusOne, b.CreateNeg(a), q);
        rem = b.CreateSelect(minusOne, zero, rem);
    }
    Value* r = nullptr;
    if (kind == Division::Truncate || kind == Division::Remainder || s.isUnsigned)
        r = kind == Division::Modulo || kind == Division::Remainder ? rem : q;
    else {
        Value* fix = b.CreateAnd(b.CreateICmpNE(rem, zero), b.CreateXor(b.CreateICmpSLT(rem, zero), b.CreateICmpSLT(d, zero)));
        r = kind == Division::Floor ? b.CreateSelect(fix, b.CreateSub(q, b.getInt64(1)), q) : b.CreateSelect(fix, b.CreateAdd(rem, d), rem);
    }
    return IrScalar(b.CreateTrunc(r, s.type));
}
IrScalar idiv(IrScalar x, IrScalar y) { return integerDivision(Division::Truncate, x, y); }
IrScalar ifloordiv(IrScalar x, IrScalar y) { return integerDivision(Division::Floor, x, y); }
IrScalar imod(IrScalar x, IrScalar y) { return integerDivision(Division::Modulo, x, y); }
IrScalar irem(IrScalar x, IrScalar y) { return integerDivision(Division::Remainder, x, y); }

// Shifts in int64, as the interpreter: a count outside [0, 64) shifts every bit out (ishr keeps the sign), and
// wrapping to a narrower type then gives that type's own shift.
enum class Shift { Left, Right };
IrScalar integerShift(Shift kind, IrScalar x, IrScalar y) {
    FormScope& s = scope();
    llvm::IRBuilder<>& b = s.b;
    Value* a = toInt64(x);
    Value* n = toInt64(y);
    Value* outside = b.CreateICmpUGE(n, b.getInt64(64));  // negative counts are huge unsigned
    Value* count = b.CreateSelect(outside, b.getInt64(0), n);
    Value* r = nullptr;
    if (kind == Shift::Left) r = b.CreateSelect(outside, b.getInt64(0), b.CreateShl(a, count));
    else r = b.CreateSelect(outside, b.CreateAShr(a, b.getInt64(63)), b.CreateAShr(a, count));
    return IrScalar(b.CreateTrunc(r, s.type));
}
IrScalar ishl(IrScalar x, IrScalar y) { return integerShift(Shift::Left, x, y); }
IrScalar ishr(IrScalar x, IrScalar y) { return integerShift(Shift::Right, x, y); }

IrScalar ipow(IrScalar x, IrScalar y) {
    FormScope& s = scope();
    return IrScalar(s.b.CreateTrunc(s.b.CreateCall(s.emitter.ipowHelper(), {toInt64(x), toInt64(y)}), s.type));
}

Value* valueOf(IrScalar x) { return x.v; }
Value* valueOf(IrBool x) { return x.v; }

// The op's float form over a and b (b is a for unary ops).
Value* floatForm(ElementOp op, IrScalar a, [[maybe_unused]] IrScalar b) {
    using T = IrScalar;
    switch (op) {
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case ElementOp::Name:                              \
        return valueOf(function(a));
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case ElementOp::Name:                                                     \
        if (ElementTyping::typing == ElementTyping::Integral) break;          \
        return valueOf(floatForm);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
    }
    throw std::runtime_error(std::string("no float form of ") + elementOpName(op));
}

Value* integerForm(ElementOp op, IrScalar a, [[maybe_unused]] IrScalar b) {
    using T = IrScalar;
    switch (op) {
        case ElementOp::Floor:  // the rounding functions keep integers (ops/unary_math.def's Keep)
        case ElementOp::Ceil:
        case ElementOp::Trunc: return a.v;
#define CWB_ELEMENTWISE_UNARY(Name, function, typing, floatForm, integerForm, ...) \
    case ElementOp::Name:                                                     \
        if (ElementTyping::typing == ElementTyping::Promote) break;           \
        if (ElementTyping::typing == ElementTyping::Floating) break;          \
        return valueOf(integerForm);
#define CWB_ELEMENTWISE_BINARY CWB_ELEMENTWISE_UNARY
#include "ops/elementwise.def"
#undef CWB_ELEMENTWISE_BINARY
#undef CWB_ELEMENTWISE_UNARY
        default: break;
    }
    throw std::runtime_error(std::string("no integer form of ") + elementOpName(op));
}

}  // namespace

Value* KernelEmitter::elementOp(ElementOp op, Value* a, Value* bArg, DType operands, DType result, bool reassociate) {
    // Bool operands compute as 0/1 bytes and the result is "!= 0", as the interpreter's wrapTo(Bool).
    const bool boolOperands = operands == DType::Bool;
    if (boolOperands) {
        a = b.CreateZExt(a, b.getInt8Ty());
        if (bArg) bArg = b.CreateZExt(bArg, b.getInt8Ty());
    }
    FormScope form{*this, b, a->getType(), tensor::isFloating(operands), isUnsignedLike(operands)};
    FormScope* outer = currentForm;
    currentForm = &form;
    Value* r = nullptr;
    try {
        const IrScalar x(a), y(bArg ? bArg : a);
        r = form.isFloat ? floatForm(op, x, y) : integerForm(op, x, y);
    } catch (...) {
        currentForm = outer;
        throw;
    }
    currentForm = outer;
    if (isComparison(op)) return r;
    if (boolOperands) return b.CreateICmpNE(r, llvm::ConstantInt::get(r->getType(), 0));
    if (!form.isFloat) return r;
    if (reassociate) {
        if (auto* inst = llvm::dyn_cast<llvm::Instruction>(r)) {
            llvm::FastMathFlags fmf;
            fmf.setAllowReassoc();
            fmf.setAllowContract();
            inst->setFastMathFlags(fmf);
        }
    }
    return roundTo(r, result);
}

Value* KernelEmitter::binaryOp(ElementOp op, Value* a, Value* bv, DType d, bool reassociate) {
    return elementOp(op, a, bv, d, d, reassociate);
}

llvm::Function* KernelEmitter::ipowHelper() {
    // Integer pow as the interpreter does it: repeated multiplication (wrapping at the end); negative exponents
    // give 1 for a base of 1, +-1 for -1 and 0 otherwise, as PyTorch.
    if (llvm::Function* f = module.getFunction("cwb_ipow_i64")) return f;
    auto* i64 = b.getInt64Ty();
    auto* f = llvm::Function::Create(llvm::FunctionType::get(i64, {i64, i64}, false), llvm::Function::InternalLinkage,
                                     "cwb_ipow_i64", module);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::IRBuilder<> h(ctx);
    auto* entry = llvm::BasicBlock::Create(ctx, "entry", f);
    auto* loop = llvm::BasicBlock::Create(ctx, "loop", f);
    auto* done = llvm::BasicBlock::Create(ctx, "done", f);
    h.SetInsertPoint(entry);
    Value* base = f->getArg(0);
    Value* exponent = f->getArg(1);
    auto* negative = llvm::BasicBlock::Create(ctx, "negative", f);
    auto* nonNegative = llvm::BasicBlock::Create(ctx, "nonnegative", f);
    h.CreateCondBr(h.CreateICmpSLT(exponent, h.getInt64(0)), negative, nonNegative);
    h.SetInsertPoint(negative);
    Value* odd = h.CreateICmpNE(h.CreateAnd(exponent, h.getInt64(1)), h.getInt64(0));
    Value* ofMinusOne = h.CreateSelect(odd, h.getInt64(static_cast<uint64_t>(-1)), h.getInt64(1));
    Value* unitBase = h.CreateSelect(h.CreateICmpEQ(base, h.getInt64(static_cast<uint64_t>(-1))), ofMinusOne, h.getInt64(0));
    h.CreateRet(h.CreateSelect(h.CreateICmpEQ(base, h.getInt64(1)), h.getInt64(1), unitBase));
    h.SetInsertPoint(nonNegative);
    h.CreateCondBr(h.CreateICmpSGT(exponent, h.getInt64(0)), loop, done);
    h.SetInsertPoint(loop);
    auto* k = h.CreatePHI(i64, 2);
    auto* acc = h.CreatePHI(i64, 2);
    k->addIncoming(h.getInt64(0), nonNegative);
    acc->addIncoming(h.getInt64(1), nonNegative);
    Value* nextAcc = h.CreateMul(acc, base);
    Value* nextK = h.CreateAdd(k, h.getInt64(1));
    k->addIncoming(nextK, loop);
    acc->addIncoming(nextAcc, loop);
    h.CreateCondBr(h.CreateICmpSLT(nextK, exponent), loop, done);
    h.SetInsertPoint(done);
    auto* result = h.CreatePHI(i64, 2);
    result->addIncoming(h.getInt64(1), nonNegative);
    result->addIncoming(nextAcc, loop);
    h.CreateRet(result);
    return f;
}

}  // namespace eng::inductor::cpu::detail
