// Index arithmetic and element expressions as LLVM IR, reproducing kernel_interpreter.cpp's semantics: float32
// math in float, half/bfloat16 rounded after every op, Python floor-div/mod, NaN-propagating max/min.
#include <cmath>
#include <limits>
#include <stdexcept>

#include <llvm/IR/Intrinsics.h>

#include "inductor/cpu/cpu_codegen_internal.h"
#include "tensor/half.h"

namespace eng::inductor::cpu::detail {

using llvm::Value;

bool isUnsignedLike(DType d) { return d == DType::Bool || d == DType::UInt8; }

namespace {
bool floating(DType d) { return tensor::isFloating(d); }
}  // namespace

KernelEmitter::KernelEmitter(llvm::Module& m, const Kernel& k) : ctx(m.getContext()), module(m), kernel(k), b(m.getContext()) {}

llvm::Type* KernelEmitter::regType(DType d) {
    switch (d) {
        case DType::Bool: return b.getInt1Ty();
        case DType::UInt8:
        case DType::Int8: return b.getInt8Ty();
        case DType::Int16: return b.getInt16Ty();
        case DType::Int32: return b.getInt32Ty();
        case DType::Int64: return b.getInt64Ty();
        case DType::Float64: return b.getDoubleTy();
        default: return b.getFloatTy();
    }
}

llvm::Type* KernelEmitter::memType(DType d) {
    if (d == DType::Bool) return b.getInt8Ty();
    if (tensor::isReducedFloat(d)) return b.getInt16Ty();
    return regType(d);
}

namespace {
// Whether an index expression is non-negative by construction (no negative constant in it). Only then may an add or
// multiply carry nuw: `s0 + -1` adds 2^64-1 as an unsigned number, which LLVM folds to poison for every s0 > 0.
bool nonNegativeByConstruction(const Index& ix) {
    switch (ix->op) {
        case IndexNode::Op::Constant: return ix->value >= 0;
        case IndexNode::Op::Var:
        case IndexNode::Op::Symbol: return true;
        default: return nonNegativeByConstruction(ix->lhs) && nonNegativeByConstruction(ix->rhs);
    }
}
}  // namespace

Value* KernelEmitter::index(const Index& ix) {
    // Values are non-negative wherever kernels use indices, so nsw and unsigned division are exact and let SCEV see
    // affine addresses; nuw only where no operand is a negative constant.
    switch (ix->op) {
        case IndexNode::Op::Constant: return b.getInt64(static_cast<uint64_t>(ix->value));
        case IndexNode::Op::Var:
            if (ix->value < 0 || static_cast<size_t>(ix->value) >= vars.size() || !vars[static_cast<size_t>(ix->value)])
                throw std::runtime_error("index uses variable " + std::to_string(ix->value) + " outside its loop");
            return vars[static_cast<size_t>(ix->value)];
        case IndexNode::Op::Symbol: {
            auto it = symbols.find(ix->symbol);
            if (it == symbols.end()) throw std::runtime_error("index uses undeclared symbol " + ix->symbol);
            return it->second;
        }
        case IndexNode::Op::Add: return b.CreateAdd(index(ix->lhs), index(ix->rhs), "", nonNegativeByConstruction(ix), true);
        case IndexNode::Op::Mul: return b.CreateMul(index(ix->lhs), index(ix->rhs), "", nonNegativeByConstruction(ix), true);
        case IndexNode::Op::FloorDiv: return b.CreateUDiv(index(ix->lhs), index(ix->rhs));
        case IndexNode::Op::Mod: return b.CreateURem(index(ix->lhs), index(ix->rhs));
    }
    throw std::runtime_error("bad index node");
}

Value* KernelEmitter::roundTo(Value* v, DType d) {
    if (d == DType::Float16) {
        return b.CreateFPExt(b.CreateFPTrunc(v, b.getHalfTy()), b.getFloatTy());
    }
    if (d == DType::BFloat16) {
        // floatToBFloat16Bits in integer ops (vectorises; no libcall): NaN stays quiet, otherwise nearest even.
        Value* bits = b.CreateBitCast(v, b.getInt32Ty());
        Value* isNan = b.CreateICmpUGT(b.CreateAnd(bits, 0x7fffffff), b.getInt32(0x7f800000));
        Value* bias = b.CreateAdd(b.getInt32(0x7fff), b.CreateAnd(b.CreateLShr(bits, 16), 1));
        Value* rounded = b.CreateAnd(b.CreateAdd(bits, bias), 0xffff0000u);
        Value* quiet = b.CreateAnd(b.CreateOr(bits, 0x00400000), 0xffff0000u);
        return b.CreateBitCast(b.CreateSelect(isNan, quiet, rounded), b.getFloatTy());
    }
    return v;
}

Value* KernelEmitter::intrinsic(llvm::Intrinsic::ID id, Value* a, Value* bArg) {
    if (bArg) return b.CreateBinaryIntrinsic(id, a, bArg);
    return b.CreateUnaryIntrinsic(id, a);
}

Value* KernelEmitter::callMath(const char* floatName, const char* doubleName, Value* a, Value* bArg) {
    llvm::Type* t = a->getType();
    const char* name = t->isDoubleTy() ? doubleName : floatName;
    std::vector<llvm::Type*> params(bArg ? 2 : 1, t);
    llvm::FunctionCallee callee = module.getOrInsertFunction(name, llvm::FunctionType::get(t, params, false));
    if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
        // libm without errno (as -fno-math-errno): pure, so it can be hoisted, CSE'd and vectorised via libmvec.
        f->setDoesNotAccessMemory();
        f->setDoesNotThrow();
        f->addFnAttr(llvm::Attribute::WillReturn);
    }
    llvm::CallInst* call = bArg ? b.CreateCall(callee, {a, bArg}) : b.CreateCall(callee, {a});
    call->setDoesNotAccessMemory();
    return call;
}

llvm::Function* KernelEmitter::ipowHelper() {
    // Integer pow as the interpreter does it: repeated multiplication, 1 for negative exponents (wraps at the end).
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
    h.CreateCondBr(h.CreateICmpSGT(exponent, h.getInt64(0)), loop, done);
    h.SetInsertPoint(loop);
    auto* k = h.CreatePHI(i64, 2);
    auto* acc = h.CreatePHI(i64, 2);
    k->addIncoming(h.getInt64(0), entry);
    acc->addIncoming(h.getInt64(1), entry);
    Value* nextAcc = h.CreateMul(acc, base);
    Value* nextK = h.CreateAdd(k, h.getInt64(1));
    k->addIncoming(nextK, loop);
    acc->addIncoming(nextAcc, loop);
    h.CreateCondBr(h.CreateICmpSLT(nextK, exponent), loop, done);
    h.SetInsertPoint(done);
    auto* result = h.CreatePHI(i64, 2);
    result->addIncoming(h.getInt64(1), entry);
    result->addIncoming(nextAcc, loop);
    h.CreateRet(result);
    return f;
}

Value* KernelEmitter::unaryOp(ElementOp op, Value* a, DType from, DType to) {
    llvm::Type* t = a->getType();
    if (op == ElementOp::LogicalNot) {
        if (floating(from)) return b.CreateFCmpOEQ(a, llvm::ConstantFP::get(t, 0.0));
        return b.CreateICmpEQ(a, llvm::ConstantInt::get(t, 0));
    }
    if (op == ElementOp::IsNan) return floating(from) ? b.CreateFCmpUNO(a, a) : static_cast<Value*>(b.getFalse());
    if (floating(from)) {
        Value* one = llvm::ConstantFP::get(t, 1.0);
        Value* r = nullptr;
        switch (op) {
#define CWB_LLVM_MATH_Intrinsic(function) intrinsic(llvm::Intrinsic::function, a)
#define CWB_LLVM_MATH_Call(function) callMath(#function "f", #function, a)
#define CWB_UNARY_MATH(Name, function, integers, llvm) \
    case ElementOp::Name:                              \
        r = CWB_LLVM_MATH_##llvm(function);            \
        break;
#include "ops/unary_math.def"
#undef CWB_UNARY_MATH
#undef CWB_LLVM_MATH_Call
#undef CWB_LLVM_MATH_Intrinsic
            case ElementOp::Neg: r = b.CreateFNeg(a); break;
            case ElementOp::Abs: r = intrinsic(llvm::Intrinsic::fabs, a); break;
            case ElementOp::Rsqrt: r = b.CreateFDiv(one, intrinsic(llvm::Intrinsic::sqrt, a)); break;
            case ElementOp::Reciprocal: r = b.CreateFDiv(one, a); break;
            case ElementOp::Sigmoid:
                r = b.CreateFDiv(one, b.CreateFAdd(one, intrinsic(llvm::Intrinsic::exp, b.CreateFNeg(a))));
                break;
            case ElementOp::Round: r = intrinsic(llvm::Intrinsic::roundeven, a); break;
            case ElementOp::Sign: {
                Value* zero = llvm::ConstantFP::get(t, 0.0);
                Value* s = b.CreateSelect(b.CreateFCmpOGT(a, zero), one,
                                          b.CreateSelect(b.CreateFCmpOLT(a, zero), llvm::ConstantFP::get(t, -1.0), zero));
                r = b.CreateSelect(b.CreateFCmpUNO(a, a), a, s);
                break;
            }
            default: throw std::runtime_error(std::string("no float form of ") + elementOpName(op));
        }
        return roundTo(r, to);
    }
    const bool isUnsigned = isUnsignedLike(from);
    if (from == DType::Bool) {
        switch (op) {
            case ElementOp::BitNot: return b.CreateNot(a);
            case ElementOp::Neg:  // -x, |x|, sign(x) are nonzero exactly when x is
            case ElementOp::Abs:
            case ElementOp::Sign:
            case ElementOp::Floor:
            case ElementOp::Ceil:
            case ElementOp::Round:
            case ElementOp::Trunc: return a;
            default: break;
        }
    }
    Value* zero = llvm::ConstantInt::get(t, 0);
    switch (op) {
        case ElementOp::Neg: return b.CreateNeg(a);
        case ElementOp::Abs: return isUnsigned ? a : b.CreateSelect(b.CreateICmpSLT(a, zero), b.CreateNeg(a), a);
        case ElementOp::Sign:
            if (isUnsigned) return b.CreateZExt(b.CreateICmpNE(a, zero), t);
            return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(a, zero), t), b.CreateZExt(b.CreateICmpSLT(a, zero), t));
        case ElementOp::BitNot: return b.CreateNot(a);
        case ElementOp::Floor:
        case ElementOp::Ceil:
        case ElementOp::Round:
        case ElementOp::Trunc: return a;
        default: throw std::runtime_error(std::string("no integer form of ") + elementOpName(op));
    }
}

Value* KernelEmitter::binaryOp(ElementOp op, Value* a, Value* bv, DType d, bool reassociate) {
    llvm::Type* t = a->getType();
    if (op == ElementOp::LogicalAnd || op == ElementOp::LogicalOr) {
        auto truth = [&](Value* v) {
            return floating(d) ? b.CreateFCmpUNE(v, llvm::ConstantFP::get(t, 0.0)) : b.CreateICmpNE(v, llvm::ConstantInt::get(t, 0));
        };
        return op == ElementOp::LogicalAnd ? b.CreateAnd(truth(a), truth(bv)) : b.CreateOr(truth(a), truth(bv));
    }
    if (floating(d)) {
        switch (op) {
            case ElementOp::Eq: return b.CreateFCmpOEQ(a, bv);
            case ElementOp::Ne: return b.CreateFCmpUNE(a, bv);
            case ElementOp::Lt: return b.CreateFCmpOLT(a, bv);
            case ElementOp::Le: return b.CreateFCmpOLE(a, bv);
            case ElementOp::Gt: return b.CreateFCmpOGT(a, bv);
            case ElementOp::Ge: return b.CreateFCmpOGE(a, bv);
            default: break;
        }
        Value* r = nullptr;
        switch (op) {
            case ElementOp::Add: r = b.CreateFAdd(a, bv); break;
            case ElementOp::Sub: r = b.CreateFSub(a, bv); break;
            case ElementOp::Mul: r = b.CreateFMul(a, bv); break;
            case ElementOp::Div: r = b.CreateFDiv(a, bv); break;
            case ElementOp::FloorDiv: {
                // floor of the quotient in double as the interpreter does: a float quotient could round up to an
                // integer and floor one too high.
                Value* q = t->isDoubleTy() ? b.CreateFDiv(a, bv)
                                           : b.CreateFDiv(b.CreateFPExt(a, b.getDoubleTy()), b.CreateFPExt(bv, b.getDoubleTy()));
                r = intrinsic(llvm::Intrinsic::floor, q);
                if (!t->isDoubleTy()) r = b.CreateFPTrunc(r, t);
                break;
            }
            case ElementOp::Mod: {
                Value* rem = b.CreateFRem(a, bv);
                Value* zero = llvm::ConstantFP::get(t, 0.0);
                Value* fix = b.CreateAnd(b.CreateFCmpONE(rem, zero),
                                         b.CreateXor(b.CreateFCmpOLT(rem, zero), b.CreateFCmpOLT(bv, zero)));
                r = b.CreateSelect(fix, b.CreateFAdd(rem, bv), rem);
                break;
            }
            case ElementOp::Pow: r = intrinsic(llvm::Intrinsic::pow, a, bv); break;
            case ElementOp::Maximum: r = intrinsic(llvm::Intrinsic::maximum, a, bv); break;
            case ElementOp::Minimum: r = intrinsic(llvm::Intrinsic::minimum, a, bv); break;
            case ElementOp::Atan2: r = callMath("atan2f", "atan2", a, bv); break;
            default: throw std::runtime_error(std::string("no float form of ") + elementOpName(op));
        }
        if (reassociate) {
            if (auto* inst = llvm::dyn_cast<llvm::Instruction>(r)) {
                llvm::FastMathFlags fmf;
                fmf.setAllowReassoc();
                fmf.setAllowContract();
                inst->setFastMathFlags(fmf);
            }
        }
        return roundTo(r, d);
    }
    const bool isUnsigned = isUnsignedLike(d);
    switch (op) {
        case ElementOp::Eq: return b.CreateICmpEQ(a, bv);
        case ElementOp::Ne: return b.CreateICmpNE(a, bv);
        case ElementOp::Lt: return isUnsigned ? b.CreateICmpULT(a, bv) : b.CreateICmpSLT(a, bv);
        case ElementOp::Le: return isUnsigned ? b.CreateICmpULE(a, bv) : b.CreateICmpSLE(a, bv);
        case ElementOp::Gt: return isUnsigned ? b.CreateICmpUGT(a, bv) : b.CreateICmpSGT(a, bv);
        case ElementOp::Ge: return isUnsigned ? b.CreateICmpUGE(a, bv) : b.CreateICmpSGE(a, bv);
        case ElementOp::BitAnd: return b.CreateAnd(a, bv);
        case ElementOp::BitOr: return b.CreateOr(a, bv);
        case ElementOp::BitXor: return b.CreateXor(a, bv);
        case ElementOp::Maximum:
            return intrinsic(isUnsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, a, bv);
        case ElementOp::Minimum:
            return intrinsic(isUnsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, a, bv);
        default: break;
    }
    if (d == DType::Bool) {  // arithmetic on 0/1 then "!= 0", as wrapTo(Bool) does
        switch (op) {
            case ElementOp::Add: return b.CreateOr(a, bv);
            case ElementOp::Sub: return b.CreateXor(a, bv);
            case ElementOp::Mul: return b.CreateAnd(a, bv);
            case ElementOp::Pow: return b.CreateOr(a, b.CreateNot(bv));  // x**0 = 1, x**1 = x
            default: break;
        }
    }
    switch (op) {
        case ElementOp::Add: return b.CreateAdd(a, bv);
        case ElementOp::Sub: return b.CreateSub(a, bv);
        case ElementOp::Mul: return b.CreateMul(a, bv);
        case ElementOp::Pow: {
            Value* wide = isUnsigned ? b.CreateZExt(a, b.getInt64Ty()) : b.CreateSExt(a, b.getInt64Ty());
            Value* e = isUnsigned ? b.CreateZExt(bv, b.getInt64Ty()) : b.CreateSExt(bv, b.getInt64Ty());
            return b.CreateTrunc(b.CreateCall(ipowHelper(), {wide, e}), t);
        }
        case ElementOp::Div:
        case ElementOp::FloorDiv:
        case ElementOp::Mod: break;
        default: throw std::runtime_error(std::string("no integer form of ") + elementOpName(op));
    }
    // Division: the interpreter divides in int64 (and throws on zero). Dividing narrow types in int64 keeps
    // INT_MIN / -1 exact, and a guarded divisor keeps select-both-arms code (where(b != 0, a // b, 0)) from trapping.
    llvm::Type* i64 = b.getInt64Ty();
    Value* x = isUnsigned ? b.CreateZExt(a, i64) : b.CreateSExt(a, i64);
    Value* y = isUnsigned ? b.CreateZExt(bv, i64) : b.CreateSExt(bv, i64);
    Value* zero = b.getInt64(0);
    Value* minusOne = b.CreateICmpEQ(y, b.getInt64(static_cast<uint64_t>(-1)));
    Value* safe = b.CreateSelect(b.CreateOr(b.CreateICmpEQ(y, zero), minusOne), b.getInt64(1), y);
    Value* q = isUnsigned ? b.CreateUDiv(x, safe) : b.CreateSDiv(x, safe);
    Value* rem = isUnsigned ? b.CreateURem(x, safe) : b.CreateSRem(x, safe);
    if (!isUnsigned) {
        q = b.CreateSelect(minusOne, b.CreateNeg(x), q);
        rem = b.CreateSelect(minusOne, zero, rem);
    }
    Value* r = nullptr;
    if (op == ElementOp::Div || isUnsigned) r = op == ElementOp::Mod ? rem : q;
    else {
        Value* fix = b.CreateAnd(b.CreateICmpNE(rem, zero), b.CreateXor(b.CreateICmpSLT(rem, zero), b.CreateICmpSLT(y, zero)));
        r = op == ElementOp::FloorDiv ? b.CreateSelect(fix, b.CreateSub(q, b.getInt64(1)), q)
                                      : b.CreateSelect(fix, b.CreateAdd(rem, y), rem);
    }
    return b.CreateTrunc(r, t);
}

Value* KernelEmitter::castOp(Value* a, DType from, DType to) {
    llvm::Type* t = regType(to);
    const bool fromFloat = floating(from), toFloat = floating(to);
    if (fromFloat && toFloat) {
        Value* v = a;
        if (a->getType() != t) v = t->isDoubleTy() ? b.CreateFPExt(a, t) : b.CreateFPTrunc(a, t);
        return roundTo(v, to);
    }
    if (!fromFloat && toFloat) {
        Value* v = isUnsignedLike(from) ? b.CreateUIToFP(a, t) : b.CreateSIToFP(a, t);
        return roundTo(v, to);
    }
    if (fromFloat) {
        if (to == DType::Bool) return b.CreateFCmpUNE(a, llvm::ConstantFP::get(a->getType(), 0.0));
        // (int64)x when it fits (compared in double, as the interpreter does), INT64_MIN otherwise (NaN too), then
        // wrapped to the target width. fptosi of an out-of-range value is poison, but select never picks it.
        Value* d = a->getType()->isDoubleTy() ? a : b.CreateFPExt(a, b.getDoubleTy());
        Value* inRange = b.CreateAnd(b.CreateFCmpOGT(d, llvm::ConstantFP::get(b.getDoubleTy(), -9.3e18)),
                                     b.CreateFCmpOLT(d, llvm::ConstantFP::get(b.getDoubleTy(), 9.3e18)));
        Value* i = b.CreateSelect(inRange, b.CreateFPToSI(d, b.getInt64Ty()),
                                  b.getInt64(static_cast<uint64_t>(std::numeric_limits<int64_t>::min())));
        return b.CreateTrunc(i, t);
    }
    if (to == DType::Bool) return b.CreateICmpNE(a, llvm::ConstantInt::get(a->getType(), 0));
    return isUnsignedLike(from) ? b.CreateZExtOrTrunc(a, t) : b.CreateSExtOrTrunc(a, t);
}

Value* KernelEmitter::expr(const ExprPtr& e) {
    if (auto it = cache_.find(e.get()); it != cache_.end()) return it->second;
    Value* v = nullptr;
    switch (e->kind) {
        case Expr::Kind::Load: {
            if (e->buffer < 0 || static_cast<size_t>(e->buffer) >= buffers.size())
                throw std::runtime_error("load from buffer " + std::to_string(e->buffer) + " out of range");
            const DType stored = kernel.buffers[static_cast<size_t>(e->buffer)].dtype;
            if (stored != e->dtype) throw std::runtime_error("load dtype differs from buffer " + kernel.buffers[static_cast<size_t>(e->buffer)].name);
            Value* p = b.CreateInBoundsGEP(memType(stored), buffers[static_cast<size_t>(e->buffer)], index(e->index));
            Value* raw = b.CreateLoad(memType(stored), p);
            if (stored == DType::Bool) v = b.CreateICmpNE(raw, b.getInt8(0));
            else if (stored == DType::Float16) v = b.CreateFPExt(b.CreateBitCast(raw, b.getHalfTy()), b.getFloatTy());
            else if (stored == DType::BFloat16) v = b.CreateBitCast(b.CreateShl(b.CreateZExt(raw, b.getInt32Ty()), 16), b.getFloatTy());
            else v = raw;
            break;
        }
        case Expr::Kind::Constant:
            if (e->dtype == DType::Float64) v = llvm::ConstantFP::get(b.getDoubleTy(), e->number);
            else if (e->dtype == DType::Float32) v = llvm::ConstantFP::get(b.getFloatTy(), static_cast<double>(static_cast<float>(e->number)));
            else if (e->dtype == DType::Float16)
                v = llvm::ConstantFP::get(b.getFloatTy(), static_cast<double>(static_cast<float>(tensor::Half(static_cast<float>(e->number)))));
            else if (e->dtype == DType::BFloat16)
                v = llvm::ConstantFP::get(b.getFloatTy(), static_cast<double>(static_cast<float>(tensor::BFloat16(static_cast<float>(e->number)))));
            else if (e->dtype == DType::Bool) v = b.getInt1(e->integer != 0);
            else v = llvm::ConstantInt::get(regType(e->dtype), static_cast<uint64_t>(e->integer), true);
            break;
        case Expr::Kind::IndexValue: v = castOp(index(e->index), DType::Int64, e->dtype); break;
        case Expr::Kind::Unary: v = unaryOp(e->op, expr(e->a), e->a->dtype, e->dtype); break;
        case Expr::Kind::Binary:
            if (e->a->dtype != e->b->dtype) throw std::runtime_error(std::string("operands of ") + elementOpName(e->op) + " differ in dtype");
            v = binaryOp(e->op, expr(e->a), expr(e->b), e->a->dtype);
            break;
        case Expr::Kind::Where: v = b.CreateSelect(expr(e->a), expr(e->b), expr(e->c)); break;
        case Expr::Kind::Cast: v = castOp(expr(e->a), e->a->dtype, e->dtype); break;
        case Expr::Kind::ReductionValue: {
            auto it = finished.find(e->reduction);
            if (it == finished.end()) throw std::runtime_error("reduction " + std::to_string(e->reduction) + " read before it finished");
            v = b.CreateLoad(regType(finishedDtype.at(e->reduction)), it->second);
            break;
        }
    }
    if (v->getType() != regType(e->dtype)) throw std::runtime_error(std::string("internal: expression type mismatch for ") + dtypeName(e->dtype).data());
    cache_[e.get()] = v;
    return v;
}

void KernelEmitter::store(const Store& s) {
    if (s.buffer < 0 || static_cast<size_t>(s.buffer) >= buffers.size())
        throw std::runtime_error("store to buffer " + std::to_string(s.buffer) + " out of range");
    const DType d = kernel.buffers[static_cast<size_t>(s.buffer)].dtype;
    if (s.value->dtype != d) throw std::runtime_error("store dtype differs from buffer " + kernel.buffers[static_cast<size_t>(s.buffer)].name);
    Value* v = expr(s.value);
    Value* raw = v;
    if (d == DType::Bool) raw = b.CreateZExt(v, b.getInt8Ty());
    else if (d == DType::Float16) raw = b.CreateBitCast(b.CreateFPTrunc(v, b.getHalfTy()), b.getInt16Ty());
    else if (d == DType::BFloat16) raw = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(roundTo(v, d), b.getInt32Ty()), 16), b.getInt16Ty());
    b.CreateStore(raw, b.CreateInBoundsGEP(memType(d), buffers[static_cast<size_t>(s.buffer)], index(s.index)));
    forget();  // later loads may read what this store wrote
}

}  // namespace eng::inductor::cpu::detail
