// The guard tree: built once per cache entry from the guard list (sources sharing a prefix share its
// accessor, and each accessor is read once per call), then checked on every call before the cached graph runs.
// The verbose pass, run only after a miss, names the first failing guard the way Dynamo's recompile log does.
#include "capture/guards.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "fx/fx_printer.h"

namespace eng::capture {

namespace {

std::string listText(const std::vector<int64_t>& values, const std::vector<bool>& dynamic) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + ((i < dynamic.size() && dynamic[i]) ? std::string("None") : std::to_string(values[i]));
    return out + "]";
}

/// Python == inside a guarded constant, except that an object (a dict key the trace iterated) must be that very
/// object: a user __eq__ never runs in a guard, and the trace read that object's attributes.
bool sameGuardedItem(const vm::Value& x, const vm::Value& y) {
    if (x.is(vm::Kind::Instance) || y.is(vm::Kind::Instance)) return x.identical(y);
    const bool sequences = (x.is(vm::Kind::Tuple) && y.is(vm::Kind::Tuple)) || (x.is(vm::Kind::List) && y.is(vm::Kind::List));
    if (!sequences) return vm::valuesEqual(x, y);
    const vm::ValueList& a = x.is(vm::Kind::Tuple) ? x.as<vm::TupleObject>().items : x.as<vm::ListObject>().items;
    const vm::ValueList& b = y.is(vm::Kind::Tuple) ? y.as<vm::TupleObject>().items : y.as<vm::ListObject>().items;
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!sameGuardedItem(a[i], b[i])) return false;
    return true;
}

/// Python == between a guarded constant and the current value (bool, int and float compare by value).
bool constantEquals(const vm::Value& expected, const vm::Value& actual) {
    if (expected.kind() != actual.kind()) return false;
    switch (expected.kind()) {
        case vm::Kind::None: return true;
        case vm::Kind::Bool: return expected.asBool() == actual.asBool();
        case vm::Kind::Int: return expected.asInt() == actual.asInt();
        case vm::Kind::Float: return expected.asFloat() == actual.asFloat();
        case vm::Kind::Str: return expected.str() == actual.str();
        case vm::Kind::DType: return expected.as<vm::DTypeObject>().value == actual.as<vm::DTypeObject>().value;
        case vm::Kind::Device: return expected.as<vm::DeviceObject>().value == actual.as<vm::DeviceObject>().value;
        default: return sameGuardedItem(expected, actual);
    }
}

bool compareHolds(uint32_t op, double a, double b) {
    switch (op) {
        case 0: return a < b;
        case 1: return a <= b;
        case 2: return a == b;
        case 3: return a != b;
        case 4: return a > b;
        default: return a >= b;
    }
}

/// One guard against the value its source holds now: empty when it holds, else the failure reason.
std::optional<std::string> failure(const GuardSpec& g, const std::optional<vm::Value>& value) {
    // Only a failing guard pays for its wording: the name is computed on the way out.
    auto name = [&g] { return g.source->stripped(); };
    switch (g.kind) {
        case GuardKind::TensorMatch: {
            if (!value || !value->is(vm::Kind::Tensor)) return fmt::format("tensor '{}' is not a tensor", name());
            const tensor::Tensor& t = value->tensor();
            if (t.dtype() != g.dtype)
                return fmt::format("tensor '{}' dtype mismatch. expected {}, actual {}", name(), tensor::dtypeKernelName(g.dtype),
                                   tensor::dtypeKernelName(t.dtype()));
            if (!(t.device() == g.device))
                return fmt::format("tensor '{}' Tensor device index mismatch. Expected device index to be {}, actual {}", name(),
                                   g.device.index(), t.device().index());
            if (t.requiresGrad() != g.requiresGrad)
                return fmt::format("tensor '{}' requires_grad mismatch. expected requires_grad={}", name(), g.requiresGrad ? 1 : 0);
            if (t.sizes().size() != g.sizes.size())
                return fmt::format("tensor '{}' rank mismatch. expected {}, actual {}", name(), g.sizes.size(), t.sizes().size());
            bool anyDynamic = false;
            for (size_t i = 0; i < g.sizes.size(); ++i) {
                if (g.dynamicDims[i]) {
                    anyDynamic = true;
                    continue;
                }
                if (t.sizes()[i] != g.sizes[i])
                    return fmt::format("tensor '{}' size mismatch at index {}. expected {}, actual {}", name(), i, g.sizes[i], t.sizes()[i]);
            }
            if (!anyDynamic)
                for (size_t i = 0; i < g.strides.size(); ++i)
                    if (t.strides()[i] != g.strides[i])
                        return fmt::format("tensor '{}' stride mismatch at index {}. expected {}, actual {}", name(), i, g.strides[i],
                                           t.strides()[i]);
            // A symbolic size was specialized away from 0 and 1 (Dynamo's 0/1 specialization).
            for (size_t i = 0; i < g.sizes.size(); ++i)
                if (g.dynamicDims[i] && t.sizes()[i] < 2) return fmt::format("2 <= {}.size()[{}]", name(), i);
            return std::nullopt;
        }
        case GuardKind::EqualsMatch:
            if (value && constantEquals(g.expected, *value)) return std::nullopt;
            return stripLocalScope(g.verboseCode());
        case GuardKind::NoneMatch:
            if (value && value->isNone()) return std::nullopt;
            return stripLocalScope(g.verboseCode());
        case GuardKind::TypeMatch: {
            bool holds = value && value->kind() == g.valueKind;
            // Instances: the same class; bound methods: the same function.
            if (holds && value->is(vm::Kind::Instance) && g.expected.is(vm::Kind::Class))
                holds = value->as<vm::InstanceObject>().cls.get() == g.expected.object().get();
            if (holds && value->is(vm::Kind::Tuple) && g.expected.is(vm::Kind::Class))  // a namedtuple's class
                holds = value->as<vm::TupleObject>().cls.get() == g.expected.object().get();
            if (holds && value->is(vm::Kind::BoundMethod) && !g.expected.isNone())
                holds = value->as<vm::BoundMethodObject>().function.identical(g.expected);
            if (holds) return std::nullopt;
            return stripLocalScope(g.verboseCode());
        }
        case GuardKind::IdMatch:
            if (value && value->identical(g.expected)) return std::nullopt;
            // A function with a closure is made anew by every call of its maker: Dynamo's CLOSURE_MATCH pins its
            // code (`___check_obj_id(L['g'].__code__, ...)`), and the cells it reads carry their own guards.
            if (value && g.codeOnly && value->is(vm::Kind::Function) &&
                value->as<vm::FunctionObject>().code == g.expected.as<vm::FunctionObject>().code)
                return std::nullopt;
            return stripLocalScope(g.verboseCode());
        case GuardKind::ScalarCompare: {
            std::optional<vm::Value> compared = value;
            if (g.dimension >= 0)
                compared = value && value->is(vm::Kind::Tensor) && value->tensor().dim() > g.dimension
                               ? std::optional<vm::Value>(vm::Value(value->tensor().size(g.dimension)))
                               : std::nullopt;
            if (g.lhs && compared && compared->is(vm::Kind::Int)) {
                auto symbolValue = [&](const SymExpr&) { return std::optional<int64_t>(compared->asInt()); };
                std::optional<int64_t> lhs = g.lhs->evaluate(symbolValue), rhs = g.rhs->evaluate(symbolValue);
                if (lhs && rhs && compareHolds(g.compareOp, static_cast<double>(*lhs), static_cast<double>(*rhs)) == g.outcome) return std::nullopt;
            } else if (!g.lhs && compared && compared->isNumber() && compareHolds(g.compareOp, compared->asFloat(), g.expected.asFloat()) == g.outcome)
                return std::nullopt;
            return stripLocalScope(g.verboseCode());
        }
        case GuardKind::DictContains:
            if (value && value->is(vm::Kind::Dict) && (value->as<vm::DictObject>().find(g.expected) != nullptr) == g.outcome) return std::nullopt;
            return stripLocalScope(g.verboseCode());
        case GuardKind::DictKeysMatch: {
            const vm::ValueList& keys = g.expected.as<vm::ListObject>().items;
            bool holds = value && value->is(vm::Kind::Dict) && value->as<vm::DictObject>().entries().size() == keys.size();
            for (size_t i = 0; holds && i < keys.size(); ++i)
                holds = g.ordered ? constantEquals(keys[i], value->as<vm::DictObject>().entries()[i].first)
                                  : value->as<vm::DictObject>().find(keys[i]) != nullptr;
            if (holds) return std::nullopt;
            return stripLocalScope(g.verboseCode());
        }
        case GuardKind::DuplicateInput:
        case GuardKind::NoTensorAliasing: return std::nullopt;  // checked over the frame (relationalFailure)
        case GuardKind::LengthCheck: {
            int64_t length = -1;
            if (value && value->is(vm::Kind::List)) length = static_cast<int64_t>(value->as<vm::ListObject>().items.size());
            if (value && value->is(vm::Kind::Tuple)) length = static_cast<int64_t>(value->as<vm::TupleObject>().items.size());
            if (value && value->is(vm::Kind::Dict)) length = static_cast<int64_t>(value->as<vm::DictObject>().entries().size());
            // A list and a tuple of one length are not interchangeable (Dynamo checks the type with the length).
            if (length == g.length && value->kind() == g.valueKind) return std::nullopt;
            return stripLocalScope(g.verboseCode());
        }
    }
    return std::nullopt;
}

bool relational(const GuardSpec& g) { return g.kind == GuardKind::DuplicateInput || g.kind == GuardKind::NoTensorAliasing; }

/// A guard over several sources (their accessors `sources`, in the guard's order): empty when it holds, else the
/// failure reason.
std::optional<std::string> relationalFailure(const GuardSpec& g, const std::vector<int>& sources, SourceValues& values) {
    if (g.kind == GuardKind::DuplicateInput) {
        const std::optional<vm::Value>& a = values.at(sources[0]);
        const std::optional<vm::Value>& b = values.at(sources[1]);
        if (a && b && a->identical(*b)) return std::nullopt;
        return stripLocalScope(g.code());
    }
    // Keyed by the object's address (Python's `is` for objects), so a frame of N tensors (an optimizer over 148
    // parameters has ~600) costs N lookups per call, not N^2 / 2 comparisons; scalars, if any, compare one by one.
    // The values stay alive in `values` for the whole check, so no address is freed and reused within it.
    std::unordered_map<const vm::Object*, size_t> seenObjects;
    std::vector<std::pair<vm::Value, size_t>> seenScalars;
    seenObjects.reserve(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
        const std::optional<vm::Value>& value = values.at(sources[i]);
        if (!value) continue;  // the tensor's own TENSOR_MATCH reports a missing one
        std::optional<size_t> other;
        if (value->isNumber() || value->isNone() || value->isNull()) {
            for (const auto& [scalar, index] : seenScalars)
                if (!other && scalar.identical(*value)) other = index;
            if (!other) seenScalars.emplace_back(*value, i);
        } else {
            auto [it, inserted] = seenObjects.emplace(value->object().get(), i);
            if (!inserted) other = it->second;
        }
        if (other) return fmt::format("Duplicate tensors found: [\"{}\", \"{}\"]", values.source(sources[*other]).stripped(),
                                           values.source(sources[i]).stripped());
    }
    return std::nullopt;
}

/// The sources a relational guard relates, in the order relationalFailure reads them.
std::vector<SourceRef> relatedSources(const GuardSpec& g) {
    if (g.kind == GuardKind::DuplicateInput) return {g.source, g.related.front()};
    return g.related;
}

}  // namespace

std::string GuardSpec::code() const {
    std::string s = source->str();
    switch (kind) {
        case GuardKind::TensorMatch:
            return fmt::format("check_tensor({}, Tensor, DispatchKeySet({}, BackendSelect, ADInplaceOrView, Autograd{}), torch.{}, "
                               "device={}, requires_grad={}, size={}, stride={})",
                               s, device.isCpu() ? "CPU" : "CUDA", device.isCpu() ? "CPU" : "CUDA", tensor::dtypeName(dtype),
                               device.isCpu() ? "None" : std::to_string(device.index()), requiresGrad ? "True" : "False",
                               listText(sizes, dynamicDims), listText(strides, std::vector<bool>(strides.size(), !dynamicDims.empty() &&
                                   std::find(dynamicDims.begin(), dynamicDims.end(), true) != dynamicDims.end())));
        case GuardKind::EqualsMatch: return fmt::format("{} == {}", s, fx::constantText(expected));
        case GuardKind::NoneMatch: return fmt::format("{} is None", s);
        case GuardKind::TypeMatch: return fmt::format("___check_type_id({}, {})", s, typeName);
        case GuardKind::IdMatch:
            if (codeOnly)
                return fmt::format("___check_obj_id({}.__code__, {})", s, static_cast<const void*>(expected.as<vm::FunctionObject>().code.get()));
            return fmt::format("___check_obj_id({}, {})", s, static_cast<const void*>(expected.object().get()));
        case GuardKind::LengthCheck: return length == 0 ? fmt::format("not {}", s) : fmt::format("len({}) == {}", s, length);  // SEQUENCE_LENGTH
        case GuardKind::DictKeysMatch: return fmt::format("list(dict.keys({})) == {}", s, fx::constantText(expected));
        case GuardKind::DictContains: return fmt::format("{}___dict_contains({}, {})", outcome ? "" : "not ", fx::constantText(expected), s);
        case GuardKind::DuplicateInput: return fmt::format("{} is {}", s, related.front()->str());
        case GuardKind::NoTensorAliasing: {
            std::string names;
            for (const SourceRef& checked : related) names += (names.empty() ? "" : ", ") + checked->str();
            return fmt::format("check_no_aliasing({})", names);
        }
        case GuardKind::ScalarCompare: {
            // Dynamo prints the comparison that held, negated when it came out false: `... <= 0.0` for `> 0.0`.
            static const char* symbols[] = {"<", "<=", "==", "!=", ">", ">="};
            static const uint32_t negated[] = {5, 4, 3, 2, 1, 0};
            uint32_t op = outcome ? compareOp : negated[compareOp % 6];
            if (lhs) return fmt::format("{} {} {}", lhs->text(), symbols[op % 6], rhs->text());
            if (dimension >= 0) return fmt::format("{}.size()[{}] {} {}", s, dimension, symbols[op % 6], fx::constantText(expected));
            return fmt::format("___as_tensor({}).item() {} {}", s, symbols[op % 6], fx::constantText(expected));
        }
    }
    return s;
}

std::string GuardSpec::verboseCode() const {
    std::string text = code();
    // A ShapeEnv specialization no user line asked for (a symbolic float's method): Dynamo has no origin for it.
    if (kind == GuardKind::ScalarCompare && origin.file.empty() && dimension < 0)
        return fmt::format("{}  # (unknown source ___as_tensor({}).item(), please file a bug)", text, source->str());
    if (origin.file.empty()) return text;
    // Shape-environment guards name the symbolic-shapes code that installed them instead of padding.
    if (kind == GuardKind::ScalarCompare)
        return fmt::format("{}  # {}  # {}:{} in {} (_dynamo/variables/tensor.py:1951 in evaluate_expr)", text, origin.code, origin.file,
                           origin.line, origin.function);
    if (text.size() < 60) text.append(60 - text.size(), ' ');
    return fmt::format("{}  # {}  # {}:{} in {}", text, origin.code, origin.file, origin.line, origin.function);
}

struct GuardTree::Node {
    SourceRef source;  // null at the root
    std::string key;
    int accessor = -1;
    std::vector<const GuardSpec*> checks;
    // As Dynamo's GuardManager: the children that failed most often are checked (and worded) first, so the order
    // changes as calls miss; the count is how often this subtree failed the fast check.
    mutable std::vector<std::unique_ptr<Node>> children;
    mutable int failCount = 0;

    bool check(SourceValues& values) const {
        if (source) {
            const std::optional<vm::Value>& value = values.at(accessor);
            for (const GuardSpec* g : checks)
                if (failure(*g, value)) return false;
        }
        for (size_t i = 0; i < children.size(); ++i) {
            if (children[i]->check(values)) continue;
            ++children[i]->failCount;
            if (i > 0)
                std::stable_sort(children.begin(), children.end(), [](const auto& a, const auto& b) { return a->failCount > b->failCount; });
            return false;
        }
        return true;
    }

    std::optional<GuardFailureReason> explain(SourceValues& values) const {
        const std::optional<vm::Value>& value = values.at(accessor);
        for (const GuardSpec* g : checks)
            if (auto reason = failure(*g, value))
                return GuardFailureReason{*reason, g->origin,
                                          g->kind != GuardKind::TensorMatch && g->kind != GuardKind::ScalarCompare && !g->origin.file.empty()};
        for (const auto& child : children)
            if (auto reason = child->explain(values)) return reason;
        return std::nullopt;
    }
};

namespace {

/// Dynamo builds its guard tree from the guards sorted by Guard.sort_key: the source's kind (locals, then globals,
/// then sources through nn.Modules), the length of the source's name, then the name; the tree's children are made
/// in that order, which is the order a failed guard is found in until misses reorder them.
std::vector<const GuardSpec*> inDynamoOrder(const std::vector<GuardSpec>& guards) {
    auto rank = [](const Source& source) {
        bool module = false;
        const Source* root = &source;
        for (; root->base; root = root->base.get())
            module = module || root->kind == Source::Kind::ModuleChild || root->kind == Source::Kind::Parameter || root->kind == Source::Kind::Buffer;
        const int scope = root->kind == Source::Kind::Global ? 1 : 0;
        return module ? 12 + scope : scope;  // GuardSource: LOCAL, GLOBAL, ..., LOCAL/GLOBAL_UNSPECIALIZED_NN_MODULE
    };
    std::vector<std::tuple<int, size_t, std::string, const GuardSpec*>> keyed;
    for (const GuardSpec& g : guards) {
        std::string name = g.source ? g.source->str() : std::string();
        const size_t length = name.size();
        keyed.emplace_back(g.source ? rank(*g.source) : -1, length, std::move(name), &g);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
        return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) < std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
    });
    std::vector<const GuardSpec*> out;
    for (const auto& entry : keyed) out.push_back(std::get<3>(entry));
    return out;
}

}  // namespace

GuardTree::GuardTree(std::vector<GuardSpec> guards) : guards_(std::move(guards)), root_(std::make_unique<Node>()) {
    for (const GuardSpec* spec : inDynamoOrder(guards_)) {
        const GuardSpec& g = *spec;
        if (relational(g)) {
            relational_.push_back(&g);
            std::vector<int> sources;
            for (const SourceRef& s : relatedSources(g)) sources.push_back(accessor(s));
            relationalSources_.push_back(std::move(sources));
            continue;
        }
        std::vector<SourceRef> chain;
        for (SourceRef s = g.source; s; s = s->base) chain.insert(chain.begin(), s);
        Node* node = root_.get();
        for (const SourceRef& s : chain) {
            std::string key = s->str();
            Node* next = nullptr;
            for (auto& child : node->children)
                if (child->key == key) next = child.get();
            if (!next) {
                node->children.push_back(std::make_unique<Node>());
                next = node->children.back().get();
                next->source = s;
                next->accessor = accessor(s);
                next->key = std::move(key);
            }
            node = next;
        }
        node->checks.push_back(&g);
    }
}

GuardTree::~GuardTree() = default;
GuardTree::GuardTree(GuardTree&&) noexcept = default;
GuardTree& GuardTree::operator=(GuardTree&&) noexcept = default;

int GuardTree::accessor(const SourceRef& source) {
    std::string name = source->str();
    if (auto it = accessorByName_.find(name); it != accessorByName_.end()) return it->second;
    Accessor step{source};
    if (source->base) step.base = accessor(source->base);
    if (source->keySource) step.key = accessor(source->keySource);
    const int index = static_cast<int>(accessors_.size());
    accessors_.push_back(std::move(step));
    accessorByName_.emplace(std::move(name), index);
    return index;
}

SourceValues::SourceValues(const GuardTree& tree, vm::Interpreter& vm, const vm::ValueList& locals, const vm::Namespace& globals)
    : tree_(tree), vm_(vm), locals_(locals), globals_(globals), values_(tree.accessors_.size()), read_(tree.accessors_.size(), false) {}

const std::optional<vm::Value>& SourceValues::at(int index) {
    const size_t i = static_cast<size_t>(index);
    if (read_[i]) return values_[i];
    const GuardTree::Accessor& step = tree_.accessors_[i];
    // A path whose base is gone is gone; the key of a dict item keyed by another source is read only then.
    if (step.base < 0 || at(step.base)) {
        static const std::optional<vm::Value> kNoKey;
        const std::optional<vm::Value>& key = step.key >= 0 ? at(step.key) : kNoKey;
        values_[i] = readSourceStep(vm_, *step.source, step.base >= 0 ? values_[static_cast<size_t>(step.base)] : kNoKey, key, locals_, globals_);
    }
    read_[i] = true;
    ++reads_;
    return values_[i];
}

const Source& SourceValues::source(int index) const { return *tree_.accessors_[static_cast<size_t>(index)].source; }

bool GuardTree::check(vm::Interpreter& vm, const vm::ValueList& locals, const vm::Namespace& globals) const {
    SourceValues values(*this, vm, locals, globals);
    return check(values);
}

bool GuardTree::check(SourceValues& values) const {
    if (!root_->check(values)) return false;
    for (size_t i = 0; i < relational_.size(); ++i)
        if (relationalFailure(*relational_[i], relationalSources_[i], values)) return false;
    return true;
}

std::optional<GuardFailureReason> GuardTree::explainFailure(vm::Interpreter& vm, const vm::ValueList& locals,
                                                            const vm::Namespace& globals) const {
    SourceValues values(*this, vm, locals, globals);
    for (const auto& child : root_->children)
        if (auto reason = child->explain(values)) return reason;
    for (size_t i = 0; i < relational_.size(); ++i)
        if (auto reason = relationalFailure(*relational_[i], relationalSources_[i], values))
            return GuardFailureReason{*reason, relational_[i]->origin, false};
    return std::nullopt;
}

std::vector<traces::Guard> GuardTree::rows() const {
    std::vector<traces::Guard> out;
    auto row = [&out](const GuardSpec& g, int depth) {
        static const char* kinds[] = {"TENSOR_MATCH",  "EQUALS_MATCH", "TYPE_MATCH",      "ID_MATCH",          "LENGTH_CHECK",
                                      "NONE_MATCH",    "SHAPE_ENV",    "DICT_CONTAINS",   "DUPLICATE_INPUT",   "NO_TENSOR_ALIASING",
                                      "DICT_KEYS_MATCH"};
        static_assert(std::size(kinds) == static_cast<size_t>(GuardKind::DictKeysMatch) + 1, "a name per GuardKind");
        traces::Guard r;
        r.index = static_cast<int>(out.size());
        r.kind = kinds[static_cast<int>(g.kind)];
        r.source = g.source->str();
        r.text = r.kind + ": " + g.verboseCode();
        r.userCode = g.origin.code;
        r.depth = depth;
        return r;
    };
    auto visit = [&](auto& self, const Node& node, int depth) -> void {
        if (node.source) {
            traces::Guard manager;
            manager.index = static_cast<int>(out.size());
            manager.kind = "GuardManager";
            manager.source = node.key;
            manager.text = "GuardManager: source=" + node.key;
            manager.depth = depth;
            out.push_back(manager);
        }
        for (const GuardSpec* g : node.checks) out.push_back(row(*g, depth + 1));
        for (const auto& child : node.children) self(self, *child, depth + 1);
    };
    visit(visit, *root_, 0);
    for (const GuardSpec* g : relational_) out.push_back(row(*g, 1));
    return out;
}

}  // namespace eng::capture
