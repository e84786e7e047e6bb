// Index arithmetic and element expressions as LLVM IR, reproducing kernel_interpreter.cpp's semantics: float32
// math in float, half/bfloat16 rounded after every op, Python floor-div/mod, NaN-propagating max/min.
#include <cmath>
#include <limits>
#include <stdexcept>

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
    if (indexOverride)
        if (Value* given = indexOverride(ix)) return given;
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
    if (d == DType::BFloat16 && nativeBFloat16) return b.CreateFPExt(b.CreateFPTrunc(v, b.getBFloatTy()), b.getFloatTy());
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
            Value* raw = loadOverride ? loadOverride(*e) : nullptr;
            if (!raw) raw = b.CreateLoad(memType(stored), b.CreateInBoundsGEP(memType(stored), buffers[static_cast<size_t>(e->buffer)], index(e->index)));
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
        case Expr::Kind::Unary: v = elementOp(e->op, expr(e->a), nullptr, e->a->dtype, e->dtype); break;
        case Expr::Kind::Binary:
            if (e->a->dtype != e->b->dtype) throw std::runtime_error(std::string("operands of ") + elementOpName(e->op) + " differ in dtype");
            v = elementOp(e->op, expr(e->a), expr(e->b), e->a->dtype, e->dtype);
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
    else if (d == DType::BFloat16 && nativeBFloat16) raw = b.CreateBitCast(b.CreateFPTrunc(v, b.getBFloatTy()), b.getInt16Ty());
    else if (d == DType::BFloat16) raw = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(roundTo(v, d), b.getInt32Ty()), 16), b.getInt16Ty());
    if (!storeOverride || !storeOverride(s, raw)) b.CreateStore(raw, b.CreateInBoundsGEP(memType(d), buffers[static_cast<size_t>(s.buffer)], index(s.index)));
    forget();  // later loads may read what this store wrote
}

}  // namespace eng::inductor::cpu::detail
