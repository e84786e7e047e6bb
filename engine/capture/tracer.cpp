// The translator's frame loop and its bookkeeping: wrapping frame values with their sources (lazily guarded),
// graph inputs made on first use, and the end of a trace (a return, or a graph break whose live values become
// graph outputs and rebuild recipes for the VM).
#include "capture/tracer.h"

#include <fmt/core.h>

#include <algorithm>

#include "capture/shape_logs.h"
#include "fx/graph_runner.h"
#include "frontend/opcodes.h"
#include "ops/in_place.h"
#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/deferred_fill.h"

namespace eng::capture {

Tracer::Tracer(vm::Interpreter& vm, TraceOptions options, DynamicState& dynamicState)
    : vm_(vm), options_(std::move(options)), dynamic_(dynamicState) {}

VarRef Tracer::constant(vm::Value value) {
    auto v = std::make_shared<Variable>();
    v->kind = value.is(vm::Kind::Tensor) ? Variable::Kind::Tensor : Variable::Kind::Python;
    v->value = std::move(value);
    v->fresh = true;
    return v;
}

VarRef Tracer::null() {
    auto v = std::make_shared<Variable>();
    v->kind = Variable::Kind::Null;
    return v;
}

VarRef Tracer::wrapResult(const vm::Value& example, Node* node) {
    auto v = std::make_shared<Variable>();
    v->kind = example.is(vm::Kind::Tensor) ? Variable::Kind::Tensor : Variable::Kind::SymScalar;
    v->value = example;
    v->node = node;
    v->fresh = true;
    return v;
}

bool Tracer::isConstant(const VarRef& v) const {
    switch (v->kind) {
        case Variable::Kind::Python: return true;
        case Variable::Kind::List:
        case Variable::Kind::Tuple:
        case Variable::Kind::Slice:
            for (const VarRef& item : v->items)
                if (!isConstant(item)) return false;
            return true;
        default: return false;
    }
}

bool Tracer::containsTensor(const VarRef& v) const {
    if (v->kind == Variable::Kind::Tensor || v->kind == Variable::Kind::SymScalar) return true;
    for (const VarRef& item : v->items)
        if (containsTensor(item)) return true;
    return false;
}

VarRef Tracer::wrapSource(const vm::Value& value, SourceRef source) {
    std::string key = source->str();
    if (auto it = sourceCache_.find(key); it != sourceCache_.end()) return it->second;
    VarRef v;
    if (value.is(vm::Kind::Tensor)) {
        // One tensor read through a second source is the same variable (one graph input), on the guard that the
        // second source holds it again; parameters keep a variable per source.
        for (const VarRef& input : tensorInputs_)
            if (input->original.identical(value) && !value.as<vm::TensorObject>().parameter) {
                GuardSpec g;
                g.kind = GuardKind::DuplicateInput;
                g.source = source;
                g.related = {input->source};
                guards_.push_back(std::move(g));
                sourceCache_[key] = input;
                return input;
            }
        v = wrapTensorInput(value, source);
        tensorInputs_.push_back(v);
    } else {
        v = std::make_shared<Variable>();
        v->value = value;
        v->source = source;
        bool scalar = value.is(vm::Kind::Int) || value.is(vm::Kind::Float);
        // Dynamo specializes ints of globals and of nn.Module internals, but not plain attributes of objects
        // passed in (L['state'].calls): those follow automatic dynamic like locals.
        bool attributeOfLocal = source->kind == Source::Kind::Attr;
        for (const Source* s = source.get(); s && attributeOfLocal; s = s->base.get())
            attributeOfLocal = s->kind == Source::Kind::Attr ? s->base != nullptr : s->kind == Source::Kind::Local && !s->base;
        // Floats follow automatic dynamic from any source but a module's (wrap_symfloat): a global dict's float
        // that changes between compiles stops being a constant too.
        bool globalFloat = value.is(vm::Kind::Float);
        for (const Source* s = source.get(); s && globalFloat; s = s->base.get())
            globalFloat = s->kind == Source::Kind::Global || ((s->kind == Source::Kind::Attr || s->kind == Source::Kind::DictItem ||
                                                               s->kind == Source::Kind::Item) && s->base);
        if (scalar && (source->kind == Source::Kind::Local || attributeOfLocal || globalFloat)) {
            // Automatic dynamic for ints and floats: a value that changed between compiles stops being a constant.
            auto [it, isNew] = dynamic_.scalars.try_emplace(key, value);
            if (!isNew && it->second && !vm::valuesEqual(*it->second, value)) it->second.reset();
            bool dynamic = (options_.automaticDynamic && !it->second) ||
                           (options_.dynamicAll && value.is(vm::Kind::Int) && source->kind == Source::Kind::Local);
            if (dynamic) v->kind = Variable::Kind::SymScalar;
        }
        if ((value.is(vm::Kind::List) || value.is(vm::Kind::Tuple)) && v->kind == Variable::Kind::Python) {
            const auto& items = value.is(vm::Kind::List) ? value.as<vm::ListObject>().items : value.as<vm::TupleObject>().items;
            v->kind = value.is(vm::Kind::List) ? Variable::Kind::List : Variable::Kind::Tuple;
            for (size_t i = 0; i < items.size(); ++i) v->items.push_back(wrapSource(items[i], Source::item(source, static_cast<int64_t>(i))));
        }
    }
    sourceCache_[key] = v;
    return v;
}

namespace {
/// A tensor of the same sizes, strides, dtype, device and requires_grad holding the same values.
vm::Value privateCopy(const vm::Value& value) {
    const tensor::Tensor& t = value.tensor();
    tensor::Tensor copy = tensor::emptyStrided(t.sizes(), t.strides(), t.dtype(), t.device());
    tensor::copyInto(copy, t);
    copy.setRequiresGrad(t.requiresGrad());
    auto object = std::make_shared<vm::TensorObject>(copy, value.as<vm::TensorObject>().parameter);
    object->dynamicMarks = value.as<vm::TensorObject>().dynamicMarks;  // mark_dynamic follows the tensor into the trace
    object->staticMarks = value.as<vm::TensorObject>().staticMarks;  // and mark_static
    object->staticAddress = value.as<vm::TensorObject>().staticAddress;
    return vm::Value(object);
}
}  // namespace

VarRef Tracer::wrapTensorInput(const vm::Value& value, SourceRef source) {
    auto v = std::make_shared<Variable>();
    v->kind = Variable::Kind::Tensor;
    v->source = std::move(source);
    // The trace computes on a private copy of each input (same sizes, strides, dtype, device, requires_grad),
    // so that an in-place op in the traced code goes into the graph and changes the real input once, when the
    // graph runs, rather than also while tracing.
    const tensor::Tensor& t = value.tensor();
    v->value = privateCopy(value);
    v->original = value;
    // Automatic dynamic: remember the sizes this frame was compiled for; a dimension that differs from an
    // earlier compile's becomes symbolic from now on.
    std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
    auto [it, isNew] = dynamic_.sizes.try_emplace(v->source->str(), sizes);
    if (!isNew && it->second.size() == sizes.size())
        for (size_t i = 0; i < sizes.size(); ++i)
            if (it->second[i] != sizes[i]) it->second[i] = -1;
    return v;
}

bool Tracer::distinctInputs(const VarRef& a, const VarRef& b) {
    auto input = [this](const VarRef& v) {
        return v->kind == Variable::Kind::Tensor && v->source && !v->value.as<vm::TensorObject>().parameter &&
               (!v->node || v->node->op == NodeOp::Placeholder) &&
               std::find(tensorInputs_.begin(), tensorInputs_.end(), v) != tensorInputs_.end();
    };
    if (a.get() == b.get() || !input(a) || !input(b)) return false;
    for (const VarRef& v : {a, b}) markDistinct(v);
    return true;
}

void Tracer::markDistinct(const VarRef& v) {
    if (std::find(distinctInputs_.begin(), distinctInputs_.end(), v) == distinctInputs_.end()) distinctInputs_.push_back(v);
}

void Tracer::guardNoTensorAliasing() {
    if (distinctInputs_.size() < 2) return;
    GuardSpec g;
    g.kind = GuardKind::NoTensorAliasing;
    g.source = distinctInputs_.front()->source;
    for (const VarRef& v : distinctInputs_) g.related.push_back(v->source);
    guards_.push_back(std::move(g));
}

GuardOrigin Tracer::originHere() const {
    GuardOrigin origin;
    if (!current_) return origin;
    origin.file = current_->code->filename;
    origin.line = current_->code->lineTable.lineOf(current_->pc);
    origin.function = current_ == nullptr || current_->parent ? current_->code->name : options_.functionName;
    origin.code = vm_.sourceLine(origin.file, origin.line);
    return origin;
}

std::string Tracer::sourceLineOf(const TraceFrame& frame) const {
    return vm_.sourceLine(frame.code->filename, frame.code->lineTable.lineOf(frame.pc));
}

void Tracer::specializeScalar(const VarRef& v) {
    if (v->kind != Variable::Kind::SymScalar) return;
    if (v->source && !v->node) {
        v->kind = Variable::Kind::Python;
        guardValue(v);
        return;
    }
    auto binding = v->node ? symbolSizes_.find(v->node) : symbolSizes_.end();
    if (binding == symbolSizes_.end()) return;
    GuardSpec g;
    g.kind = GuardKind::ScalarCompare;
    g.source = binding->second.source;
    g.dimension = binding->second.dimension;
    g.origin = originHere();
    g.compareOp = 2;  // ==, in CPython's COMPARE_OP order
    g.expected = exampleOf(v);
    g.outcome = true;
    logShapeGuard(v->node->target, g);
    guards_.push_back(std::move(g));
    v->value = exampleOf(v);
    v->kind = Variable::Kind::Python;
    v->node = nullptr;
}

void Tracer::guardValue(const VarRef& v) {
    if (v->guarded || !v->source) return;
    v->guarded = true;
    GuardSpec g;
    g.source = v->source;
    g.origin = originHere();
    const vm::Value& value = v->value;
    if (v->kind == Variable::Kind::SymScalar) {
        g.kind = GuardKind::TypeMatch;
        g.valueKind = value.kind();
        g.typeName = value.is(vm::Kind::Int) ? "int" : "float";
        g.origin = GuardOrigin{};
    } else if (v->kind == Variable::Kind::List || v->kind == Variable::Kind::Tuple) {
        g.kind = GuardKind::LengthCheck;
        g.length = static_cast<int64_t>(v->items.size());
        g.valueKind = value.is(vm::Kind::List) || value.is(vm::Kind::Tuple) ? value.kind()
                      : v->kind == Variable::Kind::List                      ? vm::Kind::List
                                                                             : vm::Kind::Tuple;
    } else {
        switch (value.kind()) {
            case vm::Kind::None: g.kind = GuardKind::NoneMatch; break;
            case vm::Kind::Bool:
            case vm::Kind::Int:
            case vm::Kind::Float:
            case vm::Kind::Str:
            case vm::Kind::DType:
            case vm::Kind::Device:
                g.kind = GuardKind::EqualsMatch;
                g.expected = value;
                break;
            case vm::Kind::Set: {
                // A set is guarded by its contents (Dynamo guards each element of a set of constants): adding to a
                // global set between calls recompiles.
                g.kind = GuardKind::EqualsMatch;
                auto snapshot = std::make_shared<vm::SetObject>();
                const vm::ValueList* before = setContentsBeforeTrace(value);  // the trace may have changed it already
                snapshot->items = before ? *before : value.as<vm::SetObject>().items;
                g.expected = vm::Value(snapshot);
                break;
            }
            case vm::Kind::Dict:
                // Its length; what the trace folds from its keys is guarded by guardDictKeys.
                g.kind = GuardKind::LengthCheck;
                g.length = static_cast<int64_t>(value.as<vm::DictObject>().entries().size());
                g.valueKind = vm::Kind::Dict;
                break;
            case vm::Kind::Instance:
            case vm::Kind::BoundMethod:
                // Objects (nn.Modules included) are guarded by class, as Dynamo's TYPE_MATCH: what the trace read
                // from them has guards of its own (attributes, parameters). Bound methods left on a resumed stack
                // (a with-statement's __exit__) are made anew on every call: their function is what counts.
                // An enum member is pinned by identity (Dynamo's EnumVariable: ___check_obj_id).
                if ((value.is(vm::Kind::Instance) && !isEnumMember(value)) ||
                    (value.is(vm::Kind::BoundMethod) && v->source->kind == Source::Kind::Local && v->source->name.rfind("___stack", 0) == 0)) {
                    g.kind = GuardKind::TypeMatch;
                    g.valueKind = value.kind();
                    g.expected = value.is(vm::Kind::Instance) ? vm::Value(value.as<vm::InstanceObject>().cls)
                                                              : value.as<vm::BoundMethodObject>().function;
                    g.typeName = value.is(vm::Kind::Instance) ? value.as<vm::InstanceObject>().cls->name : "method";
                    g.origin = GuardOrigin{};
                    break;
                }
                [[fallthrough]];
            default:
                g.kind = GuardKind::IdMatch;
                g.expected = value;
                g.origin = GuardOrigin{};
                // A closure over the compiled frame's own cells (made before a break) is made anew by every call:
                // pin its code, as Dynamo's CLOSURE_MATCH does; the trace reads its cells through their sources.
                if (value.is(vm::Kind::Function) && !value.as<vm::FunctionObject>().closure.empty() && root_) {
                    g.codeOnly = true;
                    for (const auto& cell : value.as<vm::FunctionObject>().closure)
                        g.codeOnly = g.codeOnly && std::find(root_->cells.begin(), root_->cells.end(), cell) != root_->cells.end();
                }
                break;
        }
    }
    // Dynamo's guards are a set keyed by source and kind: reading G['torch'].sigmoid again adds nothing.
    const std::string name = g.source->str();
    for (const GuardSpec& existing : guards_)
        if (existing.kind == g.kind && existing.source->str() == name) return;
    guards_.push_back(std::move(g));
}

void Tracer::guardDictKeys(const VarRef& v, bool ordered) {
    guardValue(v);
    if (!v->source || !v->value.is(vm::Kind::Dict)) return;
    const std::string name = v->source->str();
    for (GuardSpec& g : guards_)
        if (g.kind == GuardKind::DictKeysMatch && g.source->str() == name) {
            g.ordered = g.ordered || ordered;
            return;
        }
    GuardSpec g;
    g.kind = GuardKind::DictKeysMatch;
    g.source = v->source;
    g.origin = originHere();
    g.ordered = ordered;
    vm::ValueList keys;
    for (const auto& entry : v->value.as<vm::DictObject>().entries()) keys.push_back(entry.first);
    g.expected = vm::makeList(std::move(keys));
    guards_.push_back(std::move(g));
}

void Tracer::guardDictContains(const VarRef& dict, const vm::Value& key, bool found) {
    GuardSpec g;
    g.kind = GuardKind::DictContains;
    g.source = dict->source;
    g.origin = originHere();
    g.expected = key;
    g.outcome = found;
    guards_.push_back(std::move(g));
}

Arg Tracer::argOf(const VarRef& v) {
    const bool graphValue = v->kind == Variable::Kind::Tensor || v->kind == Variable::Kind::SymScalar ||
                            ((v->kind == Variable::Kind::Tuple || v->kind == Variable::Kind::List) && v->node);
    if (speculation_ && graphValue && !(v->node && graph_->contains(v->node))) return liftIntoSubgraph(v);
    switch (v->kind) {
        case Variable::Kind::Tensor: {
            if (v->node) return Arg::ofNode(v->node);
            if (!v->source) {
                // A tensor made outside the graph and captured as a constant (a default argument, say): held by a
                // get_attr node on the real tensor, which the graph updates on every call; the trace computes on a
                // private copy, as it does for inputs, so in-place ops reach the real tensor once per call.
                Node* node = graph_->addCall(NodeOp::GetAttr, "_tensor_constant" + std::to_string(graph_->nodes().size()),
                                             "_tensor_constant0", {}, {});
                node->callee = v->value;
                v->value = privateCopy(v->value);
                node->example = v->value;
                v->node = node;
                return Arg::ofNode(node);
            }
            // First use of an input tensor: its symbols, then its placeholder, and its TENSOR_MATCH guard.
            const tensor::Tensor& t = v->value.tensor();
            GuardSpec g;
            g.kind = GuardKind::TensorMatch;
            g.source = v->source;
            g.origin = originHere();
            g.dtype = t.dtype();
            g.device = t.device();
            g.sizes.assign(t.sizes().begin(), t.sizes().end());
            g.strides.assign(t.strides().begin(), t.strides().end());
            g.requiresGrad = t.requiresGrad();
            g.dynamicDims.assign(g.sizes.size(), false);
            const std::vector<int64_t>& seen = dynamic_.sizes[v->source->str()];
            std::vector<std::string> dimSymbols(g.sizes.size());
            for (size_t d = 0; d < g.sizes.size(); ++d) {
                bool changed = options_.automaticDynamic && d < seen.size() && seen[d] == -1;
                // torch._dynamo.mark_dynamic / maybe_mark_dynamic: symbolic from the first compile.
                const auto& marks = v->value.as<vm::TensorObject>().dynamicMarks;
                bool marked = std::find(marks.begin(), marks.end(), static_cast<int64_t>(d)) != marks.end();
                const auto& pins = v->value.as<vm::TensorObject>().staticMarks;  // torch._dynamo.mark_static
                bool pinned = std::find(pins.begin(), pins.end(), static_cast<int64_t>(d)) != pins.end();
                if ((changed || marked || options_.dynamicAll) && !pinned && g.sizes[d] >= 2) {
                    g.dynamicDims[d] = true;
                    std::string symbol = "s" + std::to_string(symbolCount_++);
                    logCreateSymbol(symbol, std::to_string(g.sizes[d]), fmt::format("{}.size()[{}]", v->source->str(), d), "[2, int_oo]", g.origin);
                    Node* s = graph_->addPlaceholder(symbol, vm::Value(g.sizes[d]), "torch.SymInt");
                    graph_->symbols[symbol] = s;
                    dimSymbols[d] = symbol;
                    inputs_.push_back(InputBinding{v->source, static_cast<int>(d)});
                    symbolSizes_[s] = inputs_.back();
                    auto sym = wrapResult(vm::Value(g.sizes[d]), s);
                    sourceCache_[v->source->str() + ".size()[" + std::to_string(d) + "]"] = sym;
                    symbolVars_[symbol] = sym;
                }
            }
            bool parameter = v->value.as<vm::TensorObject>().parameter;
            // Graph inputs are distinct objects on every call of this entry (Dynamo guards all of them so).
            if (!parameter && std::find(tensorInputs_.begin(), tensorInputs_.end(), v) != tensorInputs_.end()) markDistinct(v);
            v->node = graph_->addPlaceholder(v->source->placeholderName(), v->value,
                                             parameter ? "torch.nn.parameter.Parameter" : "torch.Tensor");
            v->node->dimSymbols = std::move(dimSymbols);
            inputs_.push_back(InputBinding{v->source, -1});
            guards_.push_back(std::move(g));
            return Arg::ofNode(v->node);
        }
        case Variable::Kind::SymScalar: {
            if (v->node) return Arg::ofNode(v->node);
            guardValue(v);
            // ShapeEnv names float symbols zf0, zf1, ... and int ones s0, s1, ...
            std::string symbol = (v->value.is(vm::Kind::Float) ? "zf" : "s") + std::to_string(symbolCount_++);
            logCreateSymbol(symbol, vm_.repr(v->value), v->source ? v->source->str() : symbol, v->value.is(vm::Kind::Float) ? "[-oo, oo]" : "[-int_oo, int_oo]",
                            originHere());
            v->node = graph_->addPlaceholder(symbol, v->value, v->value.is(vm::Kind::Int) ? "torch.SymInt" : "torch.SymFloat");
            graph_->symbols[symbol] = v->node;
            symbolVars_[symbol] = v;
            inputs_.push_back(InputBinding{v->source, -1});
            return Arg::ofNode(v->node);
        }
        case Variable::Kind::List:
        case Variable::Kind::Tuple:
        case Variable::Kind::Slice: {
            if (v->node) return Arg::ofNode(v->node);  // the tuple result of one op
            std::vector<Arg> items;
            for (const VarRef& item : v->items) items.push_back(argOf(item));
            if (v->source) guardValue(v);
            return Arg::ofItems(v->kind == Variable::Kind::List    ? Arg::Kind::List
                                : v->kind == Variable::Kind::Tuple ? Arg::Kind::Tuple
                                                                   : Arg::Kind::Slice,
                                std::move(items));
        }
        case Variable::Kind::Set:
            unsupported("Unsupported graph argument", "Dynamo does not pass a set to a graph operation.", {}, "call_function with SetVariable");
        case Variable::Kind::Object:
        case Variable::Kind::Super:
            unsupported("Unsupported graph argument", "Dynamo does not pass an object made in the compiled frame to a graph operation.", {},
                        "call_function with UserDefinedObjectVariable");
        default:
            // A dict from outside the frame folded whole (list(d), sorted(d)): its keys, in order, too.
            if (v->value.is(vm::Kind::Dict)) guardDictKeys(v, true);
            guardValue(v);
            return Arg::ofConstant(v->value);
    }
}

vm::Value Tracer::exampleOf(const VarRef& v) {
    switch (v->kind) {
        case Variable::Kind::List:
        case Variable::Kind::Tuple: {
            if (v->node) return v->value;  // the tuple one op returned
            if (isDictView(*v))  // a view of a dict: its example dict's view
                return vm_.call(vm_.getAttr(exampleOf(v->self), v->name), {});
            vm::ValueList items;
            for (const VarRef& item : v->items) items.push_back(exampleOf(item));
            if (v->kind == Variable::Kind::List) return vm::makeList(std::move(items));
            vm::Value tuple = vm::makeTuple(std::move(items));
            if (v->value.is(vm::Kind::Tuple)) {
                tuple.as<vm::TupleObject>().copyTypeFrom(v->value.as<vm::TupleObject>());
            }
            return tuple;
        }
        case Variable::Kind::Slice:
            return vm::Value(std::make_shared<vm::SliceObject>(exampleOf(v->items[0]), exampleOf(v->items[1]), exampleOf(v->items[2])));
        case Variable::Kind::Set: {
            auto set = std::make_shared<vm::SetObject>();
            set->frozen = v->name == "frozenset";
            for (const VarRef& item : v->items) set->items.push_back(exampleOf(item));  // distinct already
            return vm::Value(set);
        }
        case Variable::Kind::Dict: {
            auto dict = std::make_shared<vm::DictObject>();
            if (v->value.is(vm::Kind::Dict)) {  // OrderedDict / defaultdict: the class and factory of its template
                dict->cls = v->value.as<vm::DictObject>().cls;
                dict->defaultFactory = v->value.as<vm::DictObject>().defaultFactory;
            }
            for (size_t i = 0; i < v->keys.size(); ++i) dict->set(v->keys[i], exampleOf(v->items[i]));
            return vm::Value(dict);
        }
        case Variable::Kind::Null: return vm::Value::null();
        default: return v->value;
    }
}

VarRef Tracer::dictVariable(const vm::Value& dict) {
    auto v = std::make_shared<Variable>();
    v->kind = Variable::Kind::Dict;
    v->fresh = true;
    const auto& object = dict.as<vm::DictObject>();
    if (object.cls) {
        auto shape = std::make_shared<vm::DictObject>();
        shape->cls = object.cls;
        shape->defaultFactory = object.defaultFactory;
        v->value = vm::Value(shape);
    }
    for (const auto& [key, item] : object.entries()) {
        v->keys.push_back(key);
        v->items.push_back(constant(item));
    }
    return v;
}

Node* Tracer::recordCall(NodeOp op, const std::string& target, std::vector<Arg> args, std::vector<KwArg> kwargs) {
    Node* node = graph_->addCall(op, target, fx::nameCandidateOf(target), std::move(args), std::move(kwargs));
    // Dynamo's node stack trace: the innermost user frame.
    if (current_) {
        node->file = fx::InternedText(current_->code->filename);
        node->line = current_->code->lineTable.lineOf(current_->pc);
        node->function = fx::InternedText(current_->parent ? current_->code->name : options_.functionName);
        node->code = fx::InternedText(sourceLineOf(*current_));
    }
    return node;
}

VarRef Tracer::callTensorOp(NodeOp op, const std::string& target, const std::vector<VarRef>& args,
                            const std::vector<std::pair<std::string, VarRef>>& kwargs, const vm::Value& callee, CallKind kind) {
    std::vector<Arg> graphArgs;
    vm::ValueList exampleArgs;
    for (const VarRef& a : args) {
        graphArgs.push_back(argOf(a));
        exampleArgs.push_back(exampleOf(a));
    }
    std::vector<KwArg> graphKwargs;
    vm::KwArgs exampleKwargs;
    for (const auto& [key, a] : kwargs) {
        graphKwargs.emplace_back(key, argOf(a));
        exampleKwargs.emplace_back(key, exampleOf(a));
    }
    // The example value: the op run eagerly on the example inputs (clones, so in-place ops stay local). Its
    // element loops are deferred (tensor/deferred_fill.h): sizes, strides and dtype come from the kernel's own
    // rules at once, the elements only when something reads them (a data-dependent op, .item(), a guard), so a
    // trace costs the same on 2**26 elements as on 16, and its values stay exactly eager's.
    vm::Value example;
    const tensor::DeferredFillScope deferLoops;
    switch (kind) {
        case CallKind::Binary:
        case CallKind::Compare:
        case CallKind::GetItem:
        case CallKind::Unary: example = fx::applyOperator(vm_, kind, target, exampleArgs); break;
        case CallKind::Callable: {
            vm::ValueList rest(op == NodeOp::CallMethod ? exampleArgs.begin() + 1 : exampleArgs.begin(), exampleArgs.end());
            example = op == NodeOp::CallMethod ? fx::callMethodNode(vm_, exampleArgs[0], target, std::move(rest), exampleKwargs)
                                               : vm_.call(callee, std::move(rest), exampleKwargs);
        }
    }
    Node* node = recordCall(op, target, std::move(graphArgs), std::move(graphKwargs));
    node->callKind = kind;
    node->callee = callee;
    node->example = example;
    fx::inferDimSymbols(*node);
    fx::inferExactDims(*node);
    // An in-place method (x.add_(1)) returns its receiver: the same variable, so `x.add_(1) is x` holds and
    // later reads of x follow the graph's order, as in Dynamo's FX graphs.
    bool inPlaceMethod = op == NodeOp::CallMethod && ops::hasInPlaceSuffix(target);
    if (inPlaceMethod && example.is(vm::Kind::Tensor) && args[0]->kind == Variable::Kind::Tensor) return args[0];
    if (example.is(vm::Kind::Tensor) || example.is(vm::Kind::Int) || example.is(vm::Kind::Float) || example.is(vm::Kind::Bool))
        return wrapResult(example, node);
    // Tuples of tensors (x.max(dim=...), torch.split): items are getitem nodes on the result.
    if (example.is(vm::Kind::Tuple) || example.is(vm::Kind::List)) {
        auto result = std::make_shared<Variable>();
        result->kind = example.is(vm::Kind::Tuple) ? Variable::Kind::Tuple : Variable::Kind::List;
        result->value = example;
        result->node = node;
        result->fresh = true;
        return result;
    }
    if (example.isNone()) return constant(example);
    unsupported("Unsupported tensor operation result", fmt::format("`{}` returned a value Dynamo cannot represent in a graph.", target),
                {}, fmt::format("call {}", target));
}

std::vector<bool> liveLocalsAt(const frontend::CodeObject& code, uint32_t pc) {
    const size_t n = code.instructions.size();
    const size_t slots = code.varNames.size();
    // Backward dataflow to a fixed point: live-in = reads before writes, plus live-out minus writes.
    std::vector<std::vector<bool>> liveIn(n + 1, std::vector<bool>(slots, false));
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
            const frontend::Instruction& in = code.instructions[i];
            std::vector<bool> out(slots, false);
            auto merge = [&](size_t target) {
                if (target > n) return;
                for (size_t s = 0; s < slots; ++s) out[s] = out[s] || liveIn[target][s];
            };
            if (frontend::fallsThrough(in.opcode)) merge(i + 1);
            if (frontend::hasJump(in.opcode)) merge(in.arg);
            for (const auto& entry : code.exceptionTable)
                if (entry.start <= i && i < entry.end) merge(entry.target);
            if (in.opcode == frontend::Opcode::StoreFast || in.opcode == frontend::Opcode::DeleteFast) out[in.arg] = false;
            if (in.opcode == frontend::Opcode::LoadFast) out[in.arg] = true;
            if (out != liveIn[i]) {
                liveIn[i] = std::move(out);
                changed = true;
            }
        }
    }
    return pc < n ? liveIn[pc] : std::vector<bool>(slots, false);
}

}  // namespace eng::capture
