// torch.autocast in the eager runtime: per thread and device type (cpu, cuda) whether autocast is on and its
// dtype, and the casts every registry call makes under it by the policy of ops/autocast_policies.def.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/value.h"

namespace eng::tensor {

struct Schema;

struct AutocastState {
    bool enabled = false;
    DType dtype = DType::Float32;  // the lower-precision dtype
    bool operator==(const AutocastState&) const = default;
};

/// One device type's state; by default off, float16 on cuda and bfloat16 on the cpu, as in PyTorch.
AutocastState autocastState(DeviceType device);
void setAutocastState(DeviceType device, AutocastState state);

/// Both devices' states, to compare the state a graph was compiled under with the current one.
struct AutocastStates {
    AutocastState cpu, cuda;
    bool operator==(const AutocastStates&) const = default;
    bool anyEnabled() const { return cpu.enabled || cuda.enabled; }
};
AutocastStates autocastStates();
void setAutocastStates(const AutocastStates& states);

/// Puts this thread's autocast states back as they were at construction, however the scope ends (a trace of a
/// `with torch.autocast` block, a pass that runs ops under a region's state), and the weight-cast cache's too
/// (autocast_cache.h: the regions entered, whether it caches, what it holds), so that a trace abandoned inside a
/// region leaves no region open and no cast of its examples behind.
class AutocastStatesRestore {
public:
    AutocastStatesRestore();
    ~AutocastStatesRestore();
    AutocastStatesRestore(const AutocastStatesRestore&) = delete;
    AutocastStatesRestore& operator=(const AutocastStatesRestore&) = delete;

private:
    AutocastStates saved_;
    std::shared_ptr<const void> savedCache_;
};

enum class AutocastPolicy { Keep, Lower, Fp32, Fp32Opt, Promote };
/// The policy of the op whose schema is named `op` under autocast on `device`.
AutocastPolicy autocastPolicy(std::string_view op, DeviceType device);

/// Sees each cast autocast makes (`from` is the argument before the cast): AOT Autograd writes them into the graph.
using AutocastCastObserver = std::function<void(const Tensor& from, DType to)>;

/// Casts the bound arguments of a call of `schema` as autocast would before the op runs (through the registry,
/// so autograd records the casts). True when the op has a policy under the active autocast: it then runs with
/// autocast suspended, so its own inner calls are not cast again.
bool applyAutocast(const Schema& schema, std::vector<Value>& args);

/// While one exists on this thread, calls run without autocast: an op's own inner registry calls (and the casts)
/// are not cast again, as PyTorch's autocast wrappers exclude the autocast keys while they redispatch.
class AutocastSuspend {
public:
    AutocastSuspend();
    ~AutocastSuspend();
    AutocastSuspend(const AutocastSuspend&) = delete;
    AutocastSuspend& operator=(const AutocastSuspend&) = delete;
};
/// Whether autocast may change a call on this thread now (some device enabled, not suspended).
bool autocastActive();

/// Installs `observer` for a scope.
class AutocastObserverScope {
public:
    explicit AutocastObserverScope(AutocastCastObserver observer);
    ~AutocastObserverScope();
    AutocastObserverScope(const AutocastObserverScope&) = delete;
    AutocastObserverScope& operator=(const AutocastObserverScope&) = delete;

private:
    AutocastCastObserver* previous_;
    AutocastCastObserver observer_;
};

}  // namespace eng::tensor
