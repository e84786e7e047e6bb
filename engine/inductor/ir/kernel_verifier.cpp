// verifyKernel: the rules every kernel of the IR keeps (kernel_ir.h), checked before code generation so that a
// malformed kernel fails with the rule it breaks instead of generating wrong code.
#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor {

namespace {

struct Verifier {
    const Kernel& kernel;
    std::vector<int> finished;  // reductions of earlier passes
    std::vector<int> finishedLast;  // reductions over the outer range: only the final stores read them
    int firstVar = 0;  // variables below it are out of range too (the final stores' indices)

    [[noreturn]] void fail(const std::string& what) const {
        throw std::logic_error(fmt::format("malformed kernel {}: {}", kernel.name, what));
    }
    void checkIndex(const Index& index, int varLimit) const {
        if (!index) fail("missing index");
        if (index->op == IndexNode::Op::Var && (index->value < firstVar || index->value >= varLimit))
            fail(fmt::format("variable {} out of range here", index->value));
        if (index->op == IndexNode::Op::Symbol &&
            std::find(kernel.symbols.begin(), kernel.symbols.end(), index->symbol) == kernel.symbols.end())
            fail("symbol " + index->symbol + " is not a kernel parameter");
        if (index->lhs) checkIndex(index->lhs, varLimit);
        if (index->rhs) checkIndex(index->rhs, varLimit);
    }
    void checkBuffer(int buffer) const {
        if (buffer < 0 || buffer >= static_cast<int>(kernel.buffers.size())) fail(fmt::format("buffer {} does not exist", buffer));
    }
    // One statement's expression, each shared subexpression checked once.
    void checkExpr(const ExprPtr& e, int varLimit) const {
        std::unordered_set<const Expr*> checked;
        checkNode(e, varLimit, checked);
    }
    void checkNode(const ExprPtr& e, int varLimit, std::unordered_set<const Expr*>& checked) const {
        if (!e) fail("missing expression");
        if (!checked.insert(e.get()).second) return;
        switch (e->kind) {
            case Expr::Kind::Load:
                checkBuffer(e->buffer);
                if (kernel.buffers[static_cast<size_t>(e->buffer)].dtype != e->dtype) fail("load dtype differs from its buffer's");
                checkIndex(e->index, varLimit);
                break;
            case Expr::Kind::IndexValue: checkIndex(e->index, varLimit); break;
            case Expr::Kind::Unary: checkNode(e->a, varLimit, checked); break;
            case Expr::Kind::Binary:
                checkNode(e->a, varLimit, checked);
                checkNode(e->b, varLimit, checked);
                if (e->a->dtype != e->b->dtype) fail(fmt::format("operands of {} differ in dtype", elementOpName(e->op)));
                break;
            case Expr::Kind::Where:
                checkNode(e->a, varLimit, checked);
                checkNode(e->b, varLimit, checked);
                checkNode(e->c, varLimit, checked);
                if (e->a->dtype != DType::Bool) fail("where's condition is not bool");
                if (e->b->dtype != e->c->dtype) fail("where's branches differ in dtype");
                break;
            case Expr::Kind::Cast: checkNode(e->a, varLimit, checked); break;
            case Expr::Kind::ReductionValue:
                if (std::find(finished.begin(), finished.end(), e->reduction) == finished.end())
                    fail(fmt::format("red{} is read before a pass finished it", e->reduction));
                break;
            case Expr::Kind::Constant: break;
        }
    }
    void checkStores(const std::vector<Store>& stores, int varLimit) const {
        for (const Store& s : stores) {
            checkBuffer(s.buffer);
            checkIndex(s.index, varLimit);
            checkExpr(s.value, varLimit);
            if (s.value->dtype != kernel.buffers[static_cast<size_t>(s.buffer)].dtype)
                fail(fmt::format("store of {} into {} buffer {}", tensor::dtypeName(s.value->dtype),
                                 tensor::dtypeName(kernel.buffers[static_cast<size_t>(s.buffer)].dtype),
                                 kernel.buffers[static_cast<size_t>(s.buffer)].name));
        }
    }
    void runCombo() const {
        if (!kernel.passes.empty() || kernel.isReduction() || kernel.outerRanges.size() != 1) fail("a combo kernel has one outer range and no passes of its own");
        Index total = indexConstant(0);
        for (const ComboPart& part : kernel.parts) {
            if (part.kernel.isCombo() || part.kernel.isReduction()) fail("combo parts are pointwise kernels");
            verifyKernel(part.kernel);
            if (part.buffers.size() != part.kernel.buffers.size()) fail("a combo part's buffers are not all mapped");
            for (size_t j = 0; j < part.buffers.size(); ++j) {
                checkBuffer(part.buffers[j]);
                if (kernel.buffers[static_cast<size_t>(part.buffers[j])].dtype != part.kernel.buffers[j].dtype) fail("a combo part's buffer differs in dtype");
            }
            for (const std::string& symbol : part.kernel.symbols)
                if (std::find(kernel.symbols.begin(), kernel.symbols.end(), symbol) == kernel.symbols.end()) fail("symbol " + symbol + " is not a kernel parameter");
            total = total + product(part.kernel.outerRanges);
        }
        if (!indexEqual(total, kernel.outerRanges[0])) fail("the outer range is not the sum of the parts'");
    }
    void run() {
        if (kernel.isCombo()) return runCombo();
        if (kernel.passes.empty()) fail("no passes");
        const int outers = kernel.outerVarCount();
        const int all = outers + static_cast<int>(kernel.reductionRanges.size());
        for (const Index& r : kernel.outerRanges) checkIndex(r, 0);
        for (const Index& r : kernel.reductionRanges) checkIndex(r, 0);
        for (const KernelPass& pass : kernel.passes) {
            if (pass.overReductionRange && !kernel.isReduction()) fail("a pass over the reduction range of a pointwise kernel");
            if (!pass.overReductionRange && !pass.reductions.empty()) fail("reductions in an outer pass");
            const int limit = pass.overReductionRange ? all : outers;
            for (const Reduction& r : pass.reductions) {
                checkExpr(r.value, limit);
                if ((r.op == ReductionOp::Any || r.op == ReductionOp::All) && r.value->dtype != DType::Bool) fail("any/all of a non-bool value");
            }
            checkStores(pass.stores, limit);
            for (const Reduction& r : pass.reductions) {
                if (r.overOuterRange && (r.op == ReductionOp::ArgMax || r.op == ReductionOp::ArgMin)) fail("an argmax/argmin over the outer range");
                (r.overOuterRange ? finishedLast : finished).push_back(r.id);
            }
        }
        if (!kernel.finalStores.empty() && !kernel.isReduction()) fail("final stores in a pointwise kernel");
        finished.insert(finished.end(), finishedLast.begin(), finishedLast.end());
        firstVar = outers;
        checkStores(kernel.finalStores, all);
    }
};

}  // namespace

void verifyKernel(const Kernel& kernel) { Verifier{kernel, {}, {}, 0}.run(); }

}  // namespace eng::inductor
