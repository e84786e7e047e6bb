// torch.autocast's per-thread state and the casts a registry call makes under it (the policies are
// ops/autocast_policies.def): eligible arguments are floating tensors on the autocast device, float64 excluded.
#include "tensor/autocast.h"
#include "tensor/autocast_cache.h"

#include <string>
#include <unordered_map>
#include <utility>

#include "tensor/registry.h"

namespace eng::tensor {

namespace {

struct CastCache {
    bool enabled = true;
    int nesting = 0;
    // By the leaf's TensorImpl: the leaf (weak, so a freed one's address reused by another tensor is no hit) and
    // its cast.
    std::unordered_map<const TensorImpl*, std::pair<std::weak_ptr<TensorImpl>, Tensor>> casts;
};

struct ThreadAutocast {
    AutocastStates states{{false, DType::BFloat16}, {false, DType::Float16}};
    int suspended = 0;
    AutocastCastObserver* observer = nullptr;
    CastCache cache;
};

ThreadAutocast& current() {
    thread_local ThreadAutocast state;
    return state;
}

struct PolicyRow {
    AutocastPolicy cuda, cpu;
};

const std::unordered_map<std::string_view, PolicyRow>& policyTable() {
    using enum AutocastPolicy;
    static const std::unordered_map<std::string_view, PolicyRow> table = {
#define CWB_AUTOCAST(op, cudaPolicy, cpuPolicy) {#op, {cudaPolicy, cpuPolicy}},
#include "ops/autocast_policies.def"
#undef CWB_AUTOCAST
    };
    return table;
}

bool eligible(const Tensor& t, DeviceType device) {
    return t.defined() && isFloating(t.dtype()) && t.dtype() != DType::Float64 && t.device().type() == device;
}

/// Every tensor among the arguments (lists of tensors included), with a way to replace it.
template <typename Visit>
void forEachTensor(std::vector<Value>& args, Visit&& visit) {
    for (Value& v : args) {
        if (v.isTensor()) {
            Tensor t = v.toTensor();
            if (std::optional<Tensor> replaced = visit(t)) v = Value(*replaced);
        } else if (v.isSequence()) {
            ValueList items = v.items();
            bool changed = false;
            for (Value& item : items) {
                if (!item.isTensor()) continue;
                if (std::optional<Tensor> replaced = visit(item.toTensor())) {
                    item = Value(*replaced);
                    changed = true;
                }
            }
            if (changed) v = v.kind() == Value::Kind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
        }
    }
}

/// The device whose autocast governs the call: cuda when a tensor argument is on cuda, else the cpu.
DeviceType callDevice(std::vector<Value>& args) {
    DeviceType device = DeviceType::CPU;
    forEachTensor(args, [&](const Tensor& t) -> std::optional<Tensor> {
        if (t.defined() && t.device().type() == DeviceType::CUDA) device = DeviceType::CUDA;
        return std::nullopt;
    });
    return device;
}

}  // namespace

AutocastState autocastState(DeviceType device) {
    const AutocastStates& s = current().states;
    return device == DeviceType::CUDA ? s.cuda : s.cpu;
}

void setAutocastState(DeviceType device, AutocastState state) {
    AutocastStates& s = current().states;
    (device == DeviceType::CUDA ? s.cuda : s.cpu) = state;
}

AutocastStates autocastStates() { return current().states; }
void setAutocastStates(const AutocastStates& states) { current().states = states; }

AutocastPolicy autocastPolicy(std::string_view op, DeviceType device) {
    const auto& table = policyTable();
    auto it = table.find(op);
    if (it == table.end()) return AutocastPolicy::Keep;
    return device == DeviceType::CUDA ? it->second.cuda : it->second.cpu;
}

bool autocastActive() {
    const ThreadAutocast& s = current();
    return s.suspended == 0 && s.states.anyEnabled();
}

AutocastStatesRestore::AutocastStatesRestore() : saved_(autocastStates()), savedCache_(std::make_shared<const CastCache>(current().cache)) {}
AutocastStatesRestore::~AutocastStatesRestore() {
    setAutocastStates(saved_);
    current().cache = *static_cast<const CastCache*>(savedCache_.get());
}

bool autocastCacheEnabled() { return current().cache.enabled; }
void setAutocastCacheEnabled(bool enabled) { current().cache.enabled = enabled; }
int autocastIncrementNesting() { return ++current().cache.nesting; }
// Never below 0: a compiled graph's region is entered by its explicit casts, not by _enter_autocast, while the exit
// after a graph break inside the region still runs; that exit leaves no region open.
int autocastDecrementNesting() {
    int& nesting = current().cache.nesting;
    nesting = nesting > 0 ? nesting - 1 : 0;
    return nesting;
}
void clearAutocastCache() { current().cache.casts.clear(); }

AutocastSuspend::AutocastSuspend() { ++current().suspended; }
AutocastSuspend::~AutocastSuspend() { --current().suspended; }

AutocastObserverScope::AutocastObserverScope(AutocastCastObserver observer) : previous_(current().observer), observer_(std::move(observer)) {
    current().observer = &observer_;
}
AutocastObserverScope::~AutocastObserverScope() { current().observer = previous_; }

bool applyAutocast(const Schema& schema, std::vector<Value>& args) {
    if (!autocastActive()) return false;
    const DeviceType device = callDevice(args);
    const AutocastState state = autocastState(device);
    if (!state.enabled) return false;
    const AutocastPolicy policy = autocastPolicy(schema.name, device);
    if (policy == AutocastPolicy::Keep) return false;
    if (policy == AutocastPolicy::Fp32Opt) {
        for (size_t i = 0; i < schema.params.size() && i < args.size(); ++i)
            if (schema.params[i].name == "dtype" && !args[i].isNone()) return true;
    }
    DType target = policy == AutocastPolicy::Lower ? state.dtype : DType::Float32;
    if (policy == AutocastPolicy::Promote) {
        forEachTensor(args, [&](const Tensor& t) -> std::optional<Tensor> {
            if (t.defined() && isFloating(t.dtype()) && t.device().type() == device) target = promoteTypes(target, t.dtype());
            return std::nullopt;
        });
    }
    if (policy == AutocastPolicy::Fp32Opt) {
        // fp32_set_opt_dtype looks at the first argument only: an ineligible one leaves the call as it is.
        if (args.empty() || !args[0].isTensor() || !eligible(args[0].toTensor(), device)) return true;
    }
    const AutocastSuspend suspend;
    ThreadAutocast& thread = current();
    forEachTensor(args, [&](const Tensor& t) -> std::optional<Tensor> {
        if (!eligible(t, device) || t.dtype() == target) return std::nullopt;
        if (AutocastCastObserver* observer = thread.observer) {
            // A trace writes every cast into its graph: no cache, whose entries would outlive the traced region.
            (*observer)(t, target);
        } else if (target == state.dtype && t.dtype() == DType::Float32 && t.requiresGrad() && t.isLeaf() && thread.cache.enabled) {
            auto hit = thread.cache.casts.find(t.impl());
            if (hit != thread.cache.casts.end() && hit->second.first.lock() == t.implPtr()) return hit->second.second;
            const Value cast[] = {Value(t), Value(target)};
            Tensor lower = OpRegistry::instance().call("Tensor.to", cast).toTensor();
            thread.cache.casts[t.impl()] = {t.implPtr(), lower};
            return lower;
        }
        const Value cast[] = {Value(t), Value(target)};
        return OpRegistry::instance().call("Tensor.to", cast).toTensor();
    });
    return true;
}

}  // namespace eng::tensor
