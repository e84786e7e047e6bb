// Lowering of a captured graph: placeholders become input buffers and size symbols, each call node is lowered
// by its entry in the lowering registry (pointwise, reduction, view) or falls back to an extern kernel running the
// eager op, and the outputs are realized. In-place ops are lowered functionally and written back into graph
// inputs at the end; in-place ops that views would have to see run eagerly.
#include <algorithm>
#include <fmt/format.h>

#include "fx/graph_runner.h"
#include "fx/written_arguments.h"
#include "inductor/lowering_registry.h"
#include "ops/in_place.h"
#include "ops/operators.h"
#include "tensor/pointwise.h"

namespace eng::inductor {

namespace lowering {

LValue numberValue(vm::Value v) { return LValue{.kind = LValue::Kind::Number, .number = std::move(v)}; }

LValue sizeValue(Index size) {
    if (auto constant = constantValue(size)) return numberValue(vm::Value(*constant));
    return LValue{.kind = LValue::Kind::Size, .size = std::move(size)};
}

std::vector<Index> contiguousStrides(const std::vector<Index>& sizes) {
    std::vector<Index> strides(sizes.size());
    Index running = indexConstant(1);
    for (size_t d = sizes.size(); d-- > 0;) {
        strides[d] = running;
        running = running * sizes[d];
    }
    return strides;
}

bool sameIndex(const Index& a, const Index& b) { return indexEqual(a, b); }
bool sameSizes(const std::vector<Index>& a, const std::vector<Index>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!sameIndex(a[i], b[i])) return false;
    return true;
}
Index offsetOf(const std::vector<Index>& index, const std::vector<Index>& strides) {
    Index offset = indexConstant(0);
    for (size_t d = 0; d < index.size(); ++d) offset = offset + index[d] * strides[d];
    return offset;
}
namespace {

/// Python's in-place operator functions (operator.iadd, operator.iand, ...): the operator they update with.
std::optional<std::string> inPlaceOperator(const fx::Node& node) {
    if (node.callKind != fx::CallKind::Binary || !node.target.starts_with("operator.")) return std::nullopt;
    const auto operand = ops::binaryOperatorByFunction(std::string_view(node.target).substr(std::string_view("operator.").size()));
    if (!operand || !operand->inplace) return std::nullopt;
    return std::string(ops::info(operand->op).function);
}

/// The op name a node is lowered by, from its FX target: torch.sin -> sin, operator.mul -> mul, operator.imul ->
/// mul (in place), x.sum() -> sum.
std::string opNameOf(const fx::Node& node) {
    if (node.op == fx::NodeOp::CallMethod) return node.target;
    if (auto updated = inPlaceOperator(node)) return *updated;
    return node.target.substr(node.target.rfind('.') + 1);  // the whole target when it has no dot
}

/// The node writes its first argument (the op registry's marks, fx::writtenArguments). Any other write (a flag
/// that is not a constant, batch_norm's running statistics) the lowering cannot follow: the graph runs eagerly.
bool isInPlace(const fx::Node& node) {
    const std::vector<fx::WrittenArgument> written = fx::writtenArguments(node);
    if (!written.empty() && !fx::writesOnlySelf(node))
        throw LoweringError(fmt::format("{} writes its argument {}", node.target, written.back().param));
    return !written.empty();
}

}  // namespace

std::string nodeOpName(const fx::Node& node) { return opNameOf(node); }
bool nodeIsInPlace(const fx::Node& node) { return !fx::writtenArguments(node).empty(); }

Lowering::Lowering(const fx::Graph& graph, const vm::ValueList& examples, const LoweringOptions& options)
    : source_(graph), examples_(examples), options_(options) {
    for (const auto& node : graph.nodes()) {
        std::function<void(const fx::Arg&)> count = [&](const fx::Arg& arg) {
            if (arg.kind == fx::Arg::Kind::NodeRef) {
                ++users_[arg.node];
                lastUser_[arg.node] = node.get();
            }
            for (const fx::Arg& item : arg.items) count(item);
        };
        for (const fx::Arg& arg : node->args) count(arg);
        for (const auto& kw : node->kwargs) count(kw.second);
    }
}

const fx::Node* Lowering::soleUser(const fx::Node& node) const {
    auto count = users_.find(&node);
    return count != users_.end() && count->second == 1 ? lastUser_.at(&node) : nullptr;
}

int64_t Lowering::hint(const Index& size) const { return evaluate(size, {}, hints_); }
std::vector<int64_t> Lowering::hints(const std::vector<Index>& sizes) const {
    std::vector<int64_t> out;
    for (const Index& s : sizes) out.push_back(hint(s));
    return out;
}

Loader Lowering::bufferLoader(int id) {
    const GraphBuffer& b = buffer(id);
    std::vector<Index> strides = b.strides;
    DType dtype = b.dtype;
    return [id, strides, dtype](const std::vector<Index>& index) { return load(id, offsetOf(index, strides), dtype); };
}

LValue Lowering::bufferValue(int id) {
    LValue v;
    v.kind = LValue::Kind::Tensor;
    v.dtype = buffer(id).dtype;
    v.sizes = buffer(id).sizes;
    v.loader = bufferLoader(id);
    v.buffer = id;
    return v;
}

void Lowering::lowerPlaceholder(const fx::Node& node, size_t inputIndex) {
    const vm::Value& example = examples_.at(inputIndex);
    if (example.is(vm::Kind::Tensor)) {
        const tensor::Tensor& t = example.as<vm::TensorObject>().value;
        // The kernels' device is the first input's that is not a 0-d cpu tensor (eager ops take one beside cuda
        // tensors; compiled_graph.cpp copies it to the device).
        const bool cpuScalar = t.dim() == 0 && t.device().isCpu();
        if (!cpuScalar && !deviceChosenByRealInput_) {
            graph_.device = t.device();
            deviceChosenByRealInput_ = true;
        } else if (!cpuScalar && t.device() != graph_.device) {
            throw LoweringError("inputs on different devices");
        } else if (inputExamples_.empty()) {
            graph_.device = t.device();  // only cpu scalars so far: cpu, until a real input says otherwise
        }
        GraphBuffer b;
        b.name = fmt::format("arg{}_1", inputIndex);
        b.kind = BufferKind::Input;
        b.dtype = t.dtype();
        b.inputIndex = static_cast<int>(inputIndex);
        b.isParameter = node.typeName == "torch.nn.parameter.Parameter";
        bool symbolic = false;
        for (int64_t d = 0; d < t.dim(); ++d) {
            const std::string symbol = static_cast<size_t>(d) < node.dimSymbols.size() ? node.dimSymbols[static_cast<size_t>(d)] : "";
            if (!symbol.empty()) {
                symbolic = true;
                b.sizes.push_back(indexSymbol(symbol));
                if (!hints_.count(symbol)) {
                    hints_[symbol] = t.sizes()[static_cast<size_t>(d)];
                    graph_.symbols.push_back(SymbolSource{symbol, static_cast<int>(inputIndex), static_cast<int>(d)});
                }
            } else {
                b.sizes.push_back(indexConstant(t.sizes()[static_cast<size_t>(d)]));
            }
        }
        if (t.isContiguous()) b.strides = contiguousStrides(b.sizes);
        else if (!symbolic)
            for (int64_t s : t.strides()) b.strides.push_back(indexConstant(s));
        else throw LoweringError(fmt::format("input {} is dynamic and not contiguous", node.name));
        b.originNodes = {node.name};
        int id = graph_.add(std::move(b)).id;
        placeholderBuffer_[&node] = id;
        inputExamples_.emplace(&node, t);
        values_[&node] = bufferValue(id);
        return;
    }
    if (node.typeName == "torch.SymInt") {
        std::string symbol;
        for (const auto& [name, carrier] : source_.symbols)
            if (carrier == &node) symbol = name;
        if (symbol.empty()) symbol = node.name;
        if (!hints_.count(symbol)) {
            hints_[symbol] = example.asInt();
            graph_.symbols.push_back(SymbolSource{symbol, static_cast<int>(inputIndex), -1});
        }
        values_[&node] = sizeValue(indexSymbol(symbol));
        return;
    }
    // A float that changes between calls (Dynamo's SymFloat input, zf0): kernels take int sizes only, and a number
    // operand here is a constant of the graph, which would keep the first call's value.
    if (node.typeName == "torch.SymFloat")
        throw LoweringError(fmt::format("input {} is a float that changes between calls (SymFloat); kernels take only int sizes", node.name));
    if (example.isNumber()) {
        values_[&node] = numberValue(example);
        return;
    }
    throw LoweringError(fmt::format("input {} is not a tensor or a number", node.name));
}

LValue Lowering::valueOf(const fx::Arg& arg) {
    switch (arg.kind) {
        case fx::Arg::Kind::NodeRef: {
            auto found = values_.find(arg.node);
            if (found == values_.end()) throw LoweringError("argument " + arg.node->name + " was not lowered");
            return found->second;
        }
        case fx::Arg::Kind::Constant:
            if (arg.constant.isNone()) return LValue{};
            return numberValue(arg.constant);
        case fx::Arg::Kind::List:
        case fx::Arg::Kind::Tuple: {
            LValue list;
            list.kind = LValue::Kind::List;
            for (const fx::Arg& item : arg.items) list.items.push_back(valueOf(item));
            return list;
        }
        case fx::Arg::Kind::Slice: break;
    }
    throw LoweringError("slice arguments are lowered by indexing only");
}

LValue Lowering::asTensor(const LValue& value, DType dtypeForNumbers) {
    if (value.isTensor()) return value;
    LValue t;
    t.kind = LValue::Kind::Tensor;
    t.dtype = dtypeForNumbers;
    if (value.kind == LValue::Kind::Size) {
        Index size = value.size;
        t.loader = [size, dtypeForNumbers](const std::vector<Index>&) { return indexValue(size, dtypeForNumbers); };
        return t;
    }
    if (value.kind != LValue::Kind::Number) throw LoweringError("operand is neither a tensor nor a number");
    vm::Value number = value.number;
    t.loader = [number, dtypeForNumbers](const std::vector<Index>&) {
        return number.is(vm::Kind::Float) ? constantFloat(number.asFloat(), dtypeForNumbers) : constantInt(number.asInt(), dtypeForNumbers);
    };
    return t;
}

ExprPtr Lowering::viewedLoad(const LValue& value) const {
    std::vector<Index> vars;
    for (size_t d = 0; d < value.sizes.size(); ++d) vars.push_back(indexVar(static_cast<int>(d)));
    ExprPtr e = value.loader(vars);
    return e && e->kind == Expr::Kind::Load && e->dtype == value.dtype ? e : nullptr;
}

int Lowering::realize(LValue& value, const std::string& origin) {
    if (value.buffer >= 0) return value.buffer;
    if (tensor::isComplex(value.dtype)) throw LoweringError(fmt::format("{}: a {} kernel (kernels have no complex type)", origin, tensor::dtypeName(value.dtype)));
    GraphBuffer b;
    b.name = newBufferName();
    b.kind = BufferKind::Pointwise;
    b.dtype = value.dtype;
    b.sizes = value.sizes;
    b.strides = contiguousStrides(value.sizes);
    b.body = value.loader;
    b.originNodes = value.origins.empty() ? std::vector<std::string>{origin} : value.origins;
    int id = graph_.add(std::move(b)).id;
    value.loader = bufferLoader(id);
    value.buffer = id;
    value.origins = {};
    return id;
}

LValue Lowering::externFallback(const fx::Node& node) {
    if (!node.example.is(vm::Kind::Tensor)) throw LoweringError(fmt::format("{} ({}) has no lowering", node.name, node.target));
    // Pass every tensor argument (as a view of its buffer or realized); remember where each goes in the call.
    GraphBuffer b;
    const bool readOnly = fx::writtenArguments(node).empty();
    std::map<const fx::Node*, size_t> inputSlot;
    std::map<const fx::Node*, LValue> scalars;
    std::function<void(const fx::Arg&)> collect = [&](const fx::Arg& arg) {
        if (arg.kind == fx::Arg::Kind::NodeRef) {
            LValue& v = values_.at(arg.node);
            if (v.isTensor()) {
                if (!inputSlot.count(arg.node)) {
                    inputSlot[arg.node] = b.extern_.inputBuffers.size();
                    addExternInput(b.extern_, v, arg.node->name, readOnly);
                }
            } else if (v.isScalar()) {
                scalars[arg.node] = v;
            } else {
                throw LoweringError(fmt::format("{}: argument {} cannot be passed to an extern kernel", node.name, arg.node->name));
            }
        }
        for (const fx::Arg& item : arg.items) collect(item);
    };
    for (const fx::Arg& arg : node.args) collect(arg);
    for (const auto& kw : node.kwargs) collect(kw.second);

    const fx::Node* target = &node;
    b.name = newBufferName();
    b.kind = BufferKind::Extern;
    const tensor::Tensor& example = node.example.as<vm::TensorObject>().value;
    b.dtype = example.dtype();
    std::optional<std::vector<Index>> derived;
    try {
        derived = externOutputSizes(*this, node);
    } catch (const LoweringError&) {
        derived.reset();  // operands whose sizes cannot be combined here: the traced sizes below
    }
    if (derived && hints(*derived) == example.sizes()) {
        b.sizes = std::move(*derived);
    } else {
        // The traced node's symbols are carried from its inputs by size, which can be wrong for ops without a
        // shape rule above: CompiledGraph checks each extern result against these sizes and runs the graph
        // eagerly when they disagree.
        for (int64_t d = 0; d < example.dim(); ++d) {
            const std::string symbol = static_cast<size_t>(d) < node.dimSymbols.size() ? node.dimSymbols[static_cast<size_t>(d)] : "";
            b.sizes.push_back(symbol.empty() ? indexConstant(example.sizes()[static_cast<size_t>(d)]) : indexSymbol(symbol));
        }
    }
    b.strides = contiguousStrides(b.sizes);
    b.originNodes = {node.name};
    b.extern_.op = node.target;
    b.extern_.node = target;
    b.extern_.call = [target, inputSlot, scalars](vm::Interpreter& vm, const vm::ValueList& tensors, const SymbolValues& symbols) {
        return fx::callNodeOn(vm, *target, [&](const fx::Node& read) {
            if (auto slot = inputSlot.find(&read); slot != inputSlot.end()) return tensors.at(slot->second);
            const LValue& s = scalars.at(&read);
            return s.kind == LValue::Kind::Size ? vm::Value(evaluate(s.size, {}, symbols)) : s.number;
        });
    };
    return bufferValue(graph_.add(std::move(b)).id);
}

std::optional<std::pair<int, ExternView>> Lowering::stridedView(const LValue& value, bool readOnly) const {
    if (value.buffer >= 0) return std::nullopt;  // a buffer already: passed as it is
    const ExprPtr e = viewedLoad(value);
    if (!e) return std::nullopt;
    if (const GraphBuffer& base = graph_.buffers.at(static_cast<size_t>(e->buffer));
        base.kind == BufferKind::Input) {
        const std::vector<Index> dense = contiguousStrides(base.sizes);
        if (!readOnly || !std::equal(base.strides.begin(), base.strides.end(), dense.begin(), dense.end(), indexEqual)) return std::nullopt;
    }
    std::vector<std::string> symbols;
    collectSymbols(e->index, symbols);
    if (!symbols.empty()) return std::nullopt;
    ExternView view;
    std::vector<int64_t> zero(value.sizes.size(), 0), corner;
    for (size_t d = 0; d < value.sizes.size(); ++d) {
        auto size = constantValue(value.sizes[d]);
        auto stride = constantStrideOf(e->index, static_cast<int>(d));
        if (!size || !stride || *stride < 0 || *size < 1) return std::nullopt;
        view.sizes.push_back(*size);
        view.strides.push_back(*stride);
        corner.push_back(*size - 1);
    }
    view.offset = evaluate(e->index, zero, {});
    // Constant coefficients per variable leave no room for anything but offset + sum(stride * var), unless div/mod
    // hide in the index: the far corner must land where the strides say.
    int64_t last = view.offset;
    for (size_t d = 0; d < corner.size(); ++d) last += corner[d] * view.strides[d];
    if (evaluate(e->index, corner, {}) != last) return std::nullopt;
    return std::make_pair(e->buffer, std::move(view));
}

void Lowering::addExternInput(ExternCall& call, LValue& input, const std::string& origin, bool readOnly) {
    std::optional<std::pair<int, ExternView>> view = stridedView(input, readOnly);
    call.inputBuffers.push_back(view ? view->first : realize(input, origin));
    call.inputViews.push_back(view ? std::optional<ExternView>(std::move(view->second)) : std::nullopt);
}

LValue Lowering::externCall(const std::string& op, std::vector<LValue> inputs, std::vector<Index> sizes, DType dtype,
                            std::function<vm::Value(const vm::ValueList&)> call) {
    GraphBuffer b;
    for (LValue& input : inputs) addExternInput(b.extern_, input, current_->name, true);  // (library products: they write no operand)
    b.name = newBufferName();
    b.kind = BufferKind::Extern;
    b.dtype = dtype;
    b.sizes = std::move(sizes);
    b.strides = contiguousStrides(b.sizes);
    b.originNodes = {current_->name};
    b.extern_.op = op;
    b.extern_.node = current_;
    b.extern_.call = [call](vm::Interpreter&, const vm::ValueList& tensors, const SymbolValues&) { return call(tensors); };
    return bufferValue(graph_.add(std::move(b)).id);
}

const fx::Node* Lowering::storageRoot(const fx::Node* node) const {
    for (auto base = storageBase_.find(node); base != storageBase_.end(); base = storageBase_.find(node)) node = base->second;
    return node;
}

bool Lowering::isViewNode(const fx::Node* node) const {
    // An in-place op returns its operand: a view when the operand is one.
    for (auto self = inPlaceSelf_.find(node); self != inPlaceSelf_.end(); self = inPlaceSelf_.find(node)) node = self->second;
    return storageBase_.count(node) > 0;
}

void Lowering::checkInPlaceTarget(const fx::Node& node, const fx::Node& self) const {
    // Writes through a view must reach its base, and views taken earlier must see the write: lowering keeps
    // neither (a view here is index arithmetic over its base's value at the time), so such graphs run eagerly.
    if (isViewNode(&self)) throw LoweringError(fmt::format("in-place {} on a view ({} of {})", node.target, self.name, storageRoot(&self)->name));
    const fx::Node* root = storageRoot(&self);
    // Inputs that share storage (an input and a view of it that Dynamo lifted, x and x.mT) are one tensor to the
    // eager program, two buffers here.
    if (auto input = inputExamples_.find(root); input != inputExamples_.end())
        for (const auto& [other, example] : inputExamples_)
            if (other != root && example.sharesStorageWith(input->second))
                throw LoweringError(fmt::format("in-place {} on input {}, which shares storage with input {}", node.target, root->name, other->name));
    for (const auto& [view, base] : storageBase_)
        if (!inPlaceSelf_.count(view) && storageRoot(view) == root)
            throw LoweringError(fmt::format("in-place {} on {}, of which {} is a view", node.target, self.name, view->name));
}

LValue Lowering::lowerCall(const fx::Node& node) {
    std::string op = opNameOf(node);
    graph_.opOfNode[node.name] = op;
    if (auto absorbed = absorbed_.find(&node); absorbed != absorbed_.end()) return absorbed->second;
    if (node.target == "torch.ops.higher_order.cond") return lowerCond(*this, node);
    const bool inPlace = isInPlace(node);
    if (inPlace && node.callKind != fx::CallKind::Binary && ops::hasInPlaceSuffix(op)) op.pop_back();
    const fx::Node* self = !node.args.empty() && node.args[0].kind == fx::Arg::Kind::NodeRef ? node.args[0].node : nullptr;
    if (inPlace) {
        if (!self) throw LoweringError("in-place op on a constant");
        checkInPlaceTarget(node, *self);
    }
    // Kernels have no complex type: a node that reads or makes a complex tensor is an extern kernel (in place: eager).
    if (touchesComplex(node) && inPlace) throw LoweringError(fmt::format("in-place {} on a complex tensor", node.target));
    const OpLowering* entry = touchesComplex(node) ? nullptr : LoweringRegistry::instance().find(op);
    std::optional<LValue> result;
    if (entry && (!inPlace || entry->inPlaceForm)) result = entry->lower(*this, op, node);
    if (!result) {
        if (inPlace) throw LoweringError(fmt::format("in-place {} has no lowering", node.target));
        result = externFallback(node);
    }
    if (self && inPlace) {
        storageBase_[&node] = self;
        inPlaceSelf_[&node] = self;
    } else if (const tensor::ViewOp* view = self ? viewOpOf(op) : nullptr; view && aliasesItsInput(*view, node, *self) && !distinctItem(node, *self)) {
        storageBase_[&node] = self;
    }
    if (inPlace) {
        // The functional result replaces the mutated value for every later reader; a graph input is also
        // written back in place at the end, as the eager op would have left it.
        // The tensor really mutated: a graph input, or what an earlier in-place op on it returned.
        const fx::Node* root = self->op == fx::NodeOp::Placeholder ? self : nullptr;
        if (auto alias = aliasOf_.find(self); alias != aliasOf_.end()) root = alias->second;
        LValue& old = values_.at(self);
        if (!result->isTensor() || !sameSizes(result->sizes, old.sizes))
            throw LoweringError(fmt::format("in-place {} changes its operand's shape", node.target));
        // PyTorch refuses to write a result into a tensor of a dtype it cannot be cast to (float into int).
        if (!tensor::canCast(result->dtype, old.dtype))
            throw LoweringError(fmt::format("in-place {}: result type {} can't be cast to {}", node.target,
                                            tensor::dtypeName(result->dtype), tensor::dtypeName(old.dtype)));
        result->loader = [inner = result->loader, dtype = old.dtype](const std::vector<Index>& index) { return cast(inner(index), dtype); };
        result->dtype = old.dtype;
        if (root) {
            // Only the last value of an input is written back into it.
            int id = realize(*result, node.name);
            if (auto previous = lastWriteBack_.find(root); previous != lastWriteBack_.end()) buffer(previous->second).mutatesInput = -1;
            buffer(id).mutatesInput = placeholderBuffer_.at(root);
            lastWriteBack_[root] = id;
            aliasOf_[&node] = root;
            values_[root] = *result;
        }
        old = *result;
    }
    return *result;
}

void Lowering::checkAgainstExample(const fx::Node& node, const LValue& value) const {
    if (!value.isTensor() || !node.example.is(vm::Kind::Tensor)) return;
    const tensor::Tensor& t = node.example.as<vm::TensorObject>().value;
    std::vector<int64_t> sizes = hints(value.sizes);
    if (sizes != t.sizes() || value.dtype != t.dtype())
        throw LoweringError(fmt::format("lowering of {} ({}) disagrees with the traced value: {} {} vs {} {}", node.name,
                                        node.target, fmt::join(sizes, "x"), tensor::dtypeName(value.dtype),
                                        fmt::join(t.sizes(), "x"), tensor::dtypeName(t.dtype())));
}

std::pair<int, std::optional<ExternView>> Lowering::viewOfStorage(const fx::Node& output, const fx::Node& root,
                                                                   const std::vector<const fx::Node*>& sharing) const {
    // The root's buffer, unless that is an input's (x.clone() lowers to x's buffer): then nothing is root's own.
    const int base = values_.count(&root) ? values_.at(&root).buffer : -1;
    if (base >= 0 && graph_.buffers.at(static_cast<size_t>(base)).kind != BufferKind::Input) {
        const LValue& v = values_.at(&output);
        if (v.buffer == base) return {base, std::nullopt};
        if (auto view = stridedView(v); view && view->first == base) return {base, view->second};
    }
    std::vector<std::string> names;
    for (const fx::Node* n : sharing) names.push_back(n->name);
    throw LoweringError(fmt::format("outputs {} are views of one tensor, {}, and {} is not a view of its buffer at constant strides",
                                    fmt::join(names, ", "), root.name, output.name));
}

void Lowering::lowerOutput(const fx::Node& node) {
    // The tensor whose storage each buffer is to the caller: an input buffer is its placeholder's. A value that is
    // exactly a buffer of another tensor (x.clone() lowers to x's loader) is copied into a buffer of its own, or
    // a write to one output after the graph would show in the other.
    std::map<int, const fx::Node*> storageOf;
    for (const auto& [placeholder, id] : placeholderBuffer_) storageOf[id] = placeholder;
    // Outputs that are one tensor eagerly (a computed tensor and views of it): a later write to one shows in the
    // others, so they must be views of one buffer.
    std::map<const fx::Node*, std::vector<const fx::Node*>> outputsOfStorage;
    for (const fx::Arg& item : node.args.at(0).items)
        if (item.kind == fx::Arg::Kind::NodeRef && values_.at(item.node).isTensor()) {
            auto& nodes = outputsOfStorage[storageRoot(item.node)];
            if (std::find(nodes.begin(), nodes.end(), item.node) == nodes.end()) nodes.push_back(item.node);
        }
    for (const fx::Arg& item : node.args.at(0).items) {
        GraphOutput out;
        if (item.kind == fx::Arg::Kind::NodeRef) {
            LValue& v = values_.at(item.node);
            // The caller gets a view of the input eagerly and may write through it (after a graph break, the
            // next graph does): a copy in a buffer of ours would drop those writes.
            const fx::Node* root = storageRoot(item.node);
            if (v.isTensor() && isViewNode(item.node) && root->op == fx::NodeOp::Placeholder)
                throw LoweringError(fmt::format("output {} is a view of input {}", item.node->name, root->name));
            const std::vector<const fx::Node*>& sharing = v.isTensor() ? outputsOfStorage.at(root) : std::vector<const fx::Node*>{};
            if (auto input = aliasOf_.find(item.node); input != aliasOf_.end()) {
                // An in-place op on an input returns the input itself (`x += 2` rebinds x to it): the caller, and
                // the code after a graph break, get that tensor, which holds the written-back value.
                out.kind = GraphOutput::Kind::Buffer;
                out.buffer = placeholderBuffer_.at(input->second);
            } else if (sharing.size() > 1 && root->op != fx::NodeOp::Placeholder) {
                out.kind = GraphOutput::Kind::Buffer;
                std::tie(out.buffer, out.view) = viewOfStorage(*item.node, *root, sharing);
                if (auto owner = storageOf.find(out.buffer); owner != storageOf.end() && owner->second != root)
                    throw LoweringError(fmt::format("outputs {} and {} share a buffer, and views of {} are outputs too", owner->second->name,
                                                    root->name, root->name));
                storageOf.emplace(out.buffer, root);
            } else if (v.isTensor()) {
                out.kind = GraphOutput::Kind::Buffer;
                out.buffer = realize(v, item.node->name);
                if (auto owner = storageOf.find(out.buffer); owner != storageOf.end() && owner->second != root) {
                    LValue copy = bufferValue(out.buffer);
                    copy.buffer = -1;
                    out.buffer = realize(copy, item.node->name);
                }
                storageOf.emplace(out.buffer, root);
            } else if (v.kind == LValue::Kind::Size) {
                out.kind = GraphOutput::Kind::Symbol;
                out.symbolic = v.size;
            } else if (v.kind == LValue::Kind::Number) {
                out.kind = GraphOutput::Kind::Number;
                out.number = v.number;
            } else {
                throw LoweringError("output " + item.node->name + " is not a tensor or a number");
            }
        } else if (item.kind == fx::Arg::Kind::Constant) {
            out.kind = item.constant.isNone() ? GraphOutput::Kind::None : GraphOutput::Kind::Number;
            out.number = item.constant;
        } else {
            throw LoweringError("nested outputs");
        }
        graph_.outputs.push_back(out);
    }
}

LoweredGraph Lowering::run() {
    if (options_.freezing && options_.vm) chooseFrozenInputs();
    size_t inputIndex = 0;
    for (const auto& owned : source_.nodes()) {
        const fx::Node& node = *owned;
        current_ = &node;
        switch (node.op) {
            case fx::NodeOp::Placeholder: lowerPlaceholder(node, inputIndex++); break;
            case fx::NodeOp::GetAttr:
                // A higher-order op's branch is read by that op's lowering (lowering_cond.cpp), never as a value.
                if (!node.subgraph) throw LoweringError("get_attr nodes are not lowered");
                values_[&node] = LValue{};
                break;
            case fx::NodeOp::Output: lowerOutput(node); break;
            case fx::NodeOp::CallFunction:
            case fx::NodeOp::CallMethod:
            case fx::NodeOp::CallModule: {
                std::optional<LValue> folded = foldFrozen(node);  // freezing: computed from constants at compile time
                LValue value = folded ? std::move(*folded) : lowerCall(node);
                checkAgainstExample(node, value);
                // A value read by several nodes is computed once into a buffer, unless it is only a view of one
                // (a permute, a select): Inductor keeps those as views too, and realizing one would cost a copy
                // kernel that writes and re-reads the whole tensor to save nothing.
                if (value.isTensor() && value.buffer < 0 && users_[&node] > 1 && !viewedLoad(value)) realizeShared(*this, value, node.name);
                // A body that computes more graph nodes than one may fuse is computed into a buffer.
                if (value.isTensor() && value.buffer < 0 && value.origins.size() >= options_.maxFusionSize) realize(value, node.name);
                values_[&node] = std::move(value);
                break;
            }
        }
    }
    graph_.inputCount = static_cast<int>(inputIndex);
    return std::move(graph_);
}

}  // namespace lowering

LoweredGraph lowerGraph(const fx::Graph& graph, const vm::ValueList& exampleInputs, const LoweringOptions& options) {
    return lowering::Lowering(graph, exampleInputs, options).run();
}

}  // namespace eng::inductor
