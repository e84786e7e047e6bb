// The loop structure of a generated CPU kernel: the [outerBegin, outerEnd) range walked row by row so that the
// innermost loop has a plain induction variable the vectoriser likes (pointwise kernels, and column reductions
// reduced in blocks of neighbouring outputs), row reductions as loop nests with accumulators in allocas.
#include <limits>
#include <stdexcept>

#include "inductor/cpu/cpu_codegen.h"
#include "inductor/cpu/cpu_codegen_internal.h"

namespace eng::inductor::cpu::detail {

using llvm::Value;

namespace {

// for (iv = start; iv < end; ++iv) body(iv), rotated (guard + bottom test); the builder ends in the exit block.
void emitLoop(KernelEmitter& e, Value* start, Value* end, const std::function<void(Value*)>& body, const char* name) {
    llvm::IRBuilder<>& b = e.b;
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    auto* pre = b.GetInsertBlock();
    auto* loop = llvm::BasicBlock::Create(e.ctx, name, fn);
    auto* exit = llvm::BasicBlock::Create(e.ctx, std::string(name) + ".exit", fn);
    b.CreateCondBr(b.CreateICmpSLT(start, end), loop, exit);
    b.SetInsertPoint(loop);
    llvm::PHINode* iv = b.CreatePHI(b.getInt64Ty(), 2, std::string(name) + ".iv");
    iv->addIncoming(start, pre);
    body(iv);
    e.forget();  // values of the body do not dominate the exit
    Value* next = b.CreateAdd(iv, b.getInt64(1), "", true, true);
    iv->addIncoming(next, b.GetInsertBlock());
    b.CreateCondBr(b.CreateICmpSLT(next, end), loop, exit);
    b.SetInsertPoint(exit);
}

struct Accumulator {
    llvm::AllocaInst* value = nullptr;     // one slot per lane
    llvm::AllocaInst* position = nullptr;  // ArgMax/ArgMin
    llvm::AllocaInst* result = nullptr;    // the finished value ReductionValue reads
    DType dtype = DType::Float32;          // of the reduced value
    DType resultDtype = DType::Float32;
};

llvm::Constant* identity(KernelEmitter& e, ReductionOp op, DType d) {
    llvm::Type* t = e.regType(d);
    const bool isFloat = tensor::isFloating(d);
    const bool isUnsigned = isUnsignedLike(d);
    auto intMin = [&] { return isUnsigned ? llvm::ConstantInt::get(t, 0) : llvm::ConstantInt::get(t, llvm::APInt::getSignedMinValue(t->getIntegerBitWidth())); };
    auto intMax = [&] { return isUnsigned ? llvm::ConstantInt::get(t, llvm::APInt::getMaxValue(t->getIntegerBitWidth())) : llvm::ConstantInt::get(t, llvm::APInt::getSignedMaxValue(t->getIntegerBitWidth())); };
    const double inf = std::numeric_limits<double>::infinity();
    switch (op) {
        case ReductionOp::Sum:
        case ReductionOp::Any: return isFloat ? llvm::ConstantFP::get(t, 0.0) : llvm::ConstantInt::get(t, 0);
        case ReductionOp::Prod:
        case ReductionOp::All: return isFloat ? llvm::ConstantFP::get(t, 1.0) : llvm::ConstantInt::get(t, 1);
        // Max/ArgMax start below everything so the first element always becomes the accumulator (and, being at
        // flat position 0, the argmax position): the interpreter's "started" flag without a branch.
        case ReductionOp::Max:
        case ReductionOp::ArgMax: return isFloat ? llvm::ConstantFP::get(t, -inf) : intMin();
        case ReductionOp::Min:
        case ReductionOp::ArgMin: return isFloat ? llvm::ConstantFP::get(t, inf) : intMax();
    }
    return nullptr;
}

// cur combined with v by every op but ArgMax/ArgMin (which carry a position as well).
Value* combine(KernelEmitter& e, ReductionOp op, Value* cur, Value* v, DType d) {
    switch (op) {
        // PyTorch reassociates float sums and products too; the flags let them vectorise.
        case ReductionOp::Sum: return e.binaryOp(ElementOp::Add, cur, v, d, true);
        case ReductionOp::Prod: return e.binaryOp(ElementOp::Mul, cur, v, d, true);
        case ReductionOp::Max: return e.binaryOp(ElementOp::Maximum, cur, v, d);
        case ReductionOp::Min: return e.binaryOp(ElementOp::Minimum, cur, v, d);
        case ReductionOp::Any: return e.b.CreateOr(cur, v);
        case ReductionOp::All: return e.b.CreateAnd(cur, v);
        case ReductionOp::ArgMax:
        case ReductionOp::ArgMin: break;
    }
    throw std::logic_error("combine: argmax/argmin carry a position");
}

void accumulate(KernelEmitter& e, const Reduction& r, DType d, Value* valuePtr, Value* positionPtr, Value* flat) {
    llvm::IRBuilder<>& b = e.b;
    Value* v = e.expr(r.value);
    Value* cur = b.CreateLoad(e.regType(d), valuePtr);
    const bool isFloat = tensor::isFloating(d);
    Value* next = nullptr;
    switch (r.op) {
        case ReductionOp::Sum:
        case ReductionOp::Prod:
        case ReductionOp::Max:
        case ReductionOp::Min:
        case ReductionOp::Any:
        case ReductionOp::All: next = combine(e, r.op, cur, v, d); break;
        case ReductionOp::ArgMax:
        case ReductionOp::ArgMin: {
            const bool wantMax = r.op == ReductionOp::ArgMax;
            Value* better = nullptr;
            if (isFloat) {  // NaN counts as the extreme both ways, and the first NaN wins
                Value* strict = wantMax ? b.CreateFCmpOGT(v, cur) : b.CreateFCmpOLT(v, cur);
                better = b.CreateAnd(b.CreateFCmpORD(cur, cur), b.CreateOr(b.CreateFCmpUNO(v, v), strict));
            } else if (isUnsignedLike(d)) {
                better = wantMax ? b.CreateICmpUGT(v, cur) : b.CreateICmpULT(v, cur);
            } else {
                better = wantMax ? b.CreateICmpSGT(v, cur) : b.CreateICmpSLT(v, cur);
            }
            next = b.CreateSelect(better, v, cur);
            Value* pos = b.CreateLoad(b.getInt64Ty(), positionPtr);
            b.CreateStore(b.CreateSelect(better, flat, pos), positionPtr);
            break;
        }
    }
    b.CreateStore(next, valuePtr);
}

void collectLoads(const ExprPtr& e, std::vector<Index>& out) {
    std::unordered_set<const Expr*> seen;
    forEachExprOnce(e, [&](const Expr& x) { if (x.kind == Expr::Kind::Load) out.push_back(x.index); }, seen);
}

// Column-style reductions (the reduced dimension strided, the last outer dimension contiguous: sum over dim 0)
// vectorise across neighbouring outer points instead: a block of them is reduced side by side.
bool reducesAcrossContiguousOuter(const Kernel& k) {
    if (!k.isReduction() || k.outerRanges.empty()) return false;
    const int lastOuter = k.outerVarCount() - 1;
    const int lastReduction = lastOuter + static_cast<int>(k.reductionRanges.size());
    std::vector<Index> indices;
    for (const KernelPass& p : k.passes) {
        if (!p.overReductionRange) continue;
        for (const Store& s : p.stores) {
            indices.push_back(s.index);
            collectLoads(s.value, indices);
        }
        for (const Reduction& r : p.reductions) collectLoads(r.value, indices);
    }
    bool contiguous = false;
    for (const Index& ix : indices) {
        const auto alongReduction = constantStrideOf(ix, lastReduction);
        const auto alongOuter = constantStrideOf(ix, lastOuter);
        if (alongReduction && *alongReduction == 1) return false;  // rows: the reduction loop vectorises itself
        if (!alongOuter || (*alongOuter != 0 && *alongOuter != 1)) return false;
        contiguous = contiguous || *alongOuter == 1;
    }
    return contiguous;
}

constexpr uint64_t kBlock = 128;  // outer points reduced side by side (16 lanes x 4 interleaved x 2)

// A pass's reductions over its rows, without those over the outer range (which accumulate into partials).
std::vector<const Reduction*> rowReductions(const KernelPass& pass) {
    std::vector<const Reduction*> rows;
    for (const Reduction& r : pass.reductions)
        if (!r.overOuterRange) rows.push_back(&r);
    return rows;
}

}  // namespace

std::vector<std::pair<const Reduction*, Value*>> KernelEmitter::enterFunction(llvm::Function* function) {
    fn = function;
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    llvm::Value* bufferArray = fn->getArg(0);
    llvm::Value* symbolArray = fn->getArg(1);
    for (size_t i = 0; i < kernel.buffers.size(); ++i)
        buffers.push_back(b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), bufferArray, i), kernel.buffers[i].name));
    for (size_t i = 0; i < kernel.symbols.size(); ++i)
        symbols[kernel.symbols[i]] = b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), symbolArray, i), kernel.symbols[i]);
    std::vector<std::pair<const Reduction*, Value*>> partials;
    for (const KernelPass& pass : kernel.passes)
        for (const Reduction& r : pass.reductions) {
            if (!r.overOuterRange) continue;
            const size_t slot = kernel.buffers.size() + partials.size();
            partials.emplace_back(&r, b.CreateLoad(b.getPtrTy(), b.CreateConstInBoundsGEP1_64(b.getPtrTy(), bufferArray, slot), "partials" + std::to_string(r.id)));
        }
    return partials;
}

void KernelEmitter::forEachReductionPoint(const std::vector<Value*>& extents, const std::function<void(Value*)>& body) {
    const size_t outers = static_cast<size_t>(kernel.outerVarCount());
    std::function<void(size_t, Value*)> nest = [&](size_t d, Value* flatPrefix) {
        if (d == extents.size()) return body(flatPrefix);
        Value* scaled = b.CreateMul(flatPrefix, extents[d], "", true, true);
        emitLoop(*this, b.getInt64(0), extents[d], [&](Value* iv) {
            vars[outers + d] = iv;
            nest(d + 1, b.CreateAdd(scaled, iv, "", true, true));
        }, "r");
    };
    nest(0, b.getInt64(0));
}

void KernelEmitter::emitBody(llvm::Function* function) {
    // Reductions over the outer range accumulate into this call's partials (after the buffers, one array each of
    // one slot per point of the reduction range), which start at the identity.
    std::map<int, Value*> partials;
    for (const auto& [r, array] : enterFunction(function)) partials[r->id] = array;
    llvm::Value* begin = fn->getArg(2);
    llvm::Value* end = fn->getArg(3);
    Value* reductionPoints = b.getInt64(1);
    for (const Index& r : kernel.reductionRanges) reductionPoints = b.CreateMul(reductionPoints, index(r), "", true, true);

    const int outers = kernel.outerVarCount();
    const size_t last = static_cast<size_t>(outers) - 1;
    vars.assign(static_cast<size_t>(outers) + kernel.reductionRanges.size(), nullptr);
    std::vector<Value*> outerExtents, reductionExtents;
    for (const Index& r : kernel.outerRanges) outerExtents.push_back(index(r));
    for (const Index& r : kernel.reductionRanges) reductionExtents.push_back(index(r));
    const bool blocked = reducesAcrossContiguousOuter(kernel);
    const uint64_t lanes = blocked ? kBlock : 1;

    // Reduction state in the entry block: scalars (promoted to registers by mem2reg) or one slot per lane.
    auto slots = [&](llvm::Type* t, const std::string& name) {
        return lanes == 1 ? b.CreateAlloca(t, nullptr, name) : b.CreateAlloca(llvm::ArrayType::get(t, lanes), nullptr, name);
    };
    std::vector<std::vector<Accumulator>> accumulators(kernel.passes.size());
    for (size_t p = 0; p < kernel.passes.size(); ++p) {
        for (const Reduction& r : kernel.passes[p].reductions) {
            if (r.overOuterRange) continue;
            Accumulator a;
            a.dtype = r.value->dtype;
            a.resultDtype = r.resultDtype();
            a.value = slots(regType(a.dtype), "acc" + std::to_string(r.id));
            if (r.op == ReductionOp::ArgMax || r.op == ReductionOp::ArgMin) a.position = slots(b.getInt64Ty(), "pos" + std::to_string(r.id));
            a.result = slots(regType(a.resultDtype), "red" + std::to_string(r.id));
            finishedDtype[r.id] = a.resultDtype;
            accumulators[p].push_back(a);
        }
    }
    auto slot = [&](llvm::AllocaInst* a, Value* lane) -> Value* {
        return lane ? b.CreateInBoundsGEP(a->getAllocatedType(), a, {b.getInt64(0), lane}) : static_cast<Value*>(a);
    };
    // ReductionValue reads the finished value of the current lane.
    auto bindFinished = [&](Value* lane) {
        for (size_t p = 0; p < kernel.passes.size(); ++p)
            for (size_t k = 0; k < accumulators[p].size(); ++k)
                finished[rowReductions(kernel.passes[p])[k]->id] = slot(accumulators[p][k].result, lane);
    };
    bindFinished(nullptr);
    // (after the allocas, which must stay in the entry block for mem2reg)
    for (const KernelPass& pass : kernel.passes)
        for (const Reduction& r : pass.reductions) {
            if (!r.overOuterRange) continue;
            llvm::Type* t = regType(r.value->dtype);
            emitLoop(*this, b.getInt64(0), reductionPoints, [&](Value* at) {
                b.CreateStore(identity(*this, r.op, r.value->dtype), b.CreateInBoundsGEP(t, partials.at(r.id), at));
            }, "init");
        }
    forget();

    // Runs `body` once per outer point of the current block (blocked) or once for the current point.
    Value* blockStart = nullptr;
    Value* blockLength = nullptr;
    auto forEachLane = [&](const std::function<void(Value*)>& body) {
        if (!blocked) {
            bindFinished(nullptr);
            body(nullptr);
            return;
        }
        Value* saved = vars[last];
        emitLoop(*this, b.getInt64(0), blockLength, [&](Value* lane) {
            vars[last] = b.CreateAdd(blockStart, lane, "", true, true);
            bindFinished(lane);
            body(lane);
        }, "lane");
        vars[last] = saved;
    };

    // Every pass in order for the current outer point (or block of points).
    auto runPasses = [&] {
        for (size_t p = 0; p < kernel.passes.size(); ++p) {
            const KernelPass& pass = kernel.passes[p];
            if (!pass.overReductionRange) {
                forEachLane([&](Value*) {
                    for (const Store& s : pass.stores) store(s);
                });
                continue;
            }
            const std::vector<const Reduction*> rows = rowReductions(pass);
            forEachLane([&](Value* lane) {
                for (size_t k = 0; k < rows.size(); ++k) {
                    const Accumulator& a = accumulators[p][k];
                    b.CreateStore(identity(*this, rows[k]->op, a.dtype), slot(a.value, lane));
                    if (a.position) b.CreateStore(b.getInt64(0), slot(a.position, lane));
                }
            });
            // The reduction range as a loop nest with the flat position carried along (argmax and the partials
            // need it).
            forEachReductionPoint(reductionExtents, [&](Value* flatPrefix) {
                forEachLane([&](Value* lane) {
                    for (const Store& s : pass.stores) store(s);
                    for (size_t k = 0; k < rows.size(); ++k) {
                        const Accumulator& a = accumulators[p][k];
                        accumulate(*this, *rows[k], a.dtype, slot(a.value, lane), a.position ? slot(a.position, lane) : nullptr, flatPrefix);
                    }
                    for (const Reduction& r : pass.reductions)
                        if (r.overOuterRange)
                            accumulate(*this, r, r.value->dtype, b.CreateInBoundsGEP(regType(r.value->dtype), partials.at(r.id), flatPrefix), nullptr,
                                       flatPrefix);
                });
            });
            for (size_t d = 0; d < reductionExtents.size(); ++d) vars[static_cast<size_t>(outers) + d] = nullptr;
            forEachLane([&](Value* lane) {
                for (const Accumulator& a : accumulators[p]) {
                    Value* from = a.position ? slot(a.position, lane) : slot(a.value, lane);
                    b.CreateStore(b.CreateLoad(regType(a.resultDtype), from), slot(a.result, lane));
                }
            });
            forget();
        }
    };

    if (outers == 0) {
        // A single outer point: run it when the range contains 0.
        emitLoop(*this, begin, end, [&](Value*) { runPasses(); }, "x");
    } else if (!kernel.isReduction() || blocked) {
        // Decode the flat index once per row, then walk along the last outer dimension with a plain induction
        // variable (pointwise) or in blocks of reduced-together points.
        auto* pre = b.GetInsertBlock();
        auto* row = llvm::BasicBlock::Create(ctx, "row", fn);
        auto* exit = llvm::BasicBlock::Create(ctx, "done", fn);
        b.CreateCondBr(b.CreateICmpSLT(begin, end), row, exit);
        b.SetInsertPoint(row);
        llvm::PHINode* flat = b.CreatePHI(b.getInt64Ty(), 2, "flat");
        flat->addIncoming(begin, pre);
        Value* rest = flat;
        Value* lastStart = flat;
        for (int d = outers - 1; d >= 0; --d) {
            Value* x = d == 0 ? rest : b.CreateURem(rest, outerExtents[static_cast<size_t>(d)]);
            if (static_cast<size_t>(d) == last) lastStart = x;
            else vars[static_cast<size_t>(d)] = x;
            if (d > 0) rest = b.CreateUDiv(rest, outerExtents[static_cast<size_t>(d)]);
        }
        Value* rowLeft = b.CreateSub(outerExtents.back(), lastStart);
        Value* count = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, rowLeft, b.CreateSub(end, flat));
        Value* lastEnd = b.CreateAdd(lastStart, count, "", true, true);
        if (!blocked) {
            emitLoop(*this, lastStart, lastEnd, [&](Value* iv) {
                vars[last] = iv;
                runPasses();
            }, "x");
        } else {
            Value* blocks = b.CreateUDiv(b.CreateAdd(count, b.getInt64(kBlock - 1)), b.getInt64(kBlock));
            emitLoop(*this, b.getInt64(0), blocks, [&](Value* block) {
                blockStart = b.CreateAdd(lastStart, b.CreateMul(block, b.getInt64(kBlock)), "", true, true);
                blockLength = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.getInt64(kBlock), b.CreateSub(lastEnd, blockStart));
                runPasses();
            }, "block");
        }
        Value* nextFlat = b.CreateAdd(flat, count, "", true, true);
        flat->addIncoming(nextFlat, b.GetInsertBlock());
        b.CreateCondBr(b.CreateICmpSLT(nextFlat, end), row, exit);
        b.SetInsertPoint(exit);
    } else {
        // Row reductions: the passes' loops are the inner loops, so one decode per outer point is cheap.
        emitLoop(*this, begin, end, [&](Value* flatIndex) {
            Value* rest = flatIndex;
            for (int d = outers - 1; d >= 0; --d) {
                vars[static_cast<size_t>(d)] = d == 0 ? rest : b.CreateURem(rest, outerExtents[static_cast<size_t>(d)]);
                if (d > 0) rest = b.CreateUDiv(rest, outerExtents[static_cast<size_t>(d)]);
            }
            runPasses();
        }, "x");
    }
    b.CreateRetVoid();
}

void KernelEmitter::emitFinish(llvm::Function* function) { emitFinishOf(function, false); }

void KernelEmitter::emitFinishRange(llvm::Function* function) { emitFinishOf(function, true); }

void KernelEmitter::emitFinishOf(llvm::Function* function, bool pointRange) {
    const std::vector<std::pair<const Reduction*, Value*>> across = enterFunction(function);
    Value* pieces = fn->getArg(pointRange ? 2 : 3);
    const int outers = kernel.outerVarCount();
    vars.assign(static_cast<size_t>(outers) + kernel.reductionRanges.size(), b.getInt64(0));
    std::vector<Value*> extents;
    Value* points = b.getInt64(1);
    for (const Index& r : kernel.reductionRanges) {
        extents.push_back(index(r));
        points = b.CreateMul(points, extents.back(), "", true, true);
    }
    // Piece t's partials of a reduction are at its base + t * points * 8 bytes (the launcher's layout).
    Value* pieceBytes = b.CreateMul(points, b.getInt64(kPartialSlotBytes), "", true, true);
    for (const auto& [r, base] : across) {
        finished[r->id] = b.CreateAlloca(regType(r->value->dtype), nullptr, "red" + std::to_string(r->id));
        finishedDtype[r->id] = r->resultDtype();
    }
    forget();
    auto finishPoint = [&](Value* flat) {
        for (const auto& [r, base] : across) {
            llvm::Type* t = regType(r->value->dtype);
            b.CreateStore(b.CreateLoad(t, b.CreateInBoundsGEP(t, base, flat)), finished.at(r->id));
            emitLoop(*this, b.getInt64(1), pieces, [&](Value* piece) {
                Value* array = b.CreateInBoundsGEP(b.getInt8Ty(), base, b.CreateMul(piece, pieceBytes, "", true, true));
                Value* partial = b.CreateLoad(t, b.CreateInBoundsGEP(t, array, flat));
                Value* cur = b.CreateLoad(t, finished.at(r->id));
                b.CreateStore(combine(*this, r->op, cur, partial, r->value->dtype), finished.at(r->id));
            }, "piece");
        }
        for (const Store& s : kernel.finalStores) store(s);
        forget();
    };
    if (!pointRange) {
        forEachReductionPoint(extents, finishPoint);
    } else {
        // Points [begin, end) of the flattened reduction range, each decoded into the reduction variables.
        emitLoop(*this, fn->getArg(3), fn->getArg(4), [&](Value* flat) {
            Value* rest = flat;
            for (size_t d = extents.size(); d-- > 0;) {
                vars[static_cast<size_t>(outers) + d] = d == 0 ? rest : b.CreateURem(rest, extents[d]);
                if (d > 0) rest = b.CreateUDiv(rest, extents[d]);
            }
            finishPoint(flat);
        }, "point");
    }
    b.CreateRetVoid();
}

llvm::Function* createKernelFunction(llvm::Module& module, const std::string& name, const std::string& cpu, const std::string& features) {
    llvm::LLVMContext& ctx = module.getContext();
    auto* ptr = llvm::PointerType::getUnqual(ctx);
    auto* i64 = llvm::Type::getInt64Ty(ctx);
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64, i64}, false);
    auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn->addFnAttr("target-cpu", cpu);
    fn->addFnAttr("target-features", features);
    // LLVM's tuning for Intel's server CPUs prefers 256-bit vectors; PyTorch's CPU kernels use all 512 bits on an
    // AVX-512 host, and the vectoriser needs 16 lanes to call libmvec's AVX-512 math (cpu_jit.cpp).
    if (features.find("+avx512f") != std::string::npos) fn->addFnAttr("prefer-vector-width", "512");
    for (unsigned i = 0; i < 2; ++i) {
        fn->addParamAttr(i, llvm::Attribute::ReadOnly);
        fn->addParamAttr(i, llvm::Attribute::NoCapture);
    }
    fn->getArg(0)->setName("buffers");
    fn->getArg(1)->setName("symbols");
    fn->getArg(2)->setName("outerBegin");
    fn->getArg(3)->setName("outerEnd");
    return fn;
}

llvm::Function* emitKernel(llvm::Module& module, const Kernel& kernel, const std::string& name, const std::string& cpu,
                           const std::string& features) {
    llvm::Function* fn = createKernelFunction(module, name, cpu, features);
    KernelEmitter emitter(module, kernel);
    emitter.emitBody(fn);
    if (kernel.hasOuterRangeReductions()) KernelEmitter(module, kernel).emitFinish(createKernelFunction(module, name + kFinishSuffix, cpu, features));
    return fn;
}

}  // namespace eng::inductor::cpu::detail
