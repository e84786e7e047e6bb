// torch.autocast in the eager runtime: the policy table's decisions per device (PyTorch's cuda and cpu lists
// differ), the casts a registry call makes under an enabled state, and the observer AOT Autograd relies on.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "tensor/autocast.h"
#include "tensor/creation.h"
#include "tensor/registry.h"

namespace eng::tensor {
namespace {

/// Sets this thread's autocast state for a test and restores it afterwards.
struct ScopedAutocast {
    AutocastStates saved = autocastStates();
    explicit ScopedAutocast(AutocastStates states) { setAutocastStates(states); }
    ~ScopedAutocast() { setAutocastStates(saved); }
};

Value call(std::string_view name, std::vector<Value> args, KeywordArgs kwargs = {}) { return OpRegistry::instance().call(name, args, kwargs); }

TEST(Autocast, PoliciesFollowPyTorchsListsPerDevice) {
    EXPECT_EQ(autocastPolicy("matmul", DeviceType::CUDA), AutocastPolicy::Lower);
    EXPECT_EQ(autocastPolicy("linear", DeviceType::CPU), AutocastPolicy::Lower);
    EXPECT_EQ(autocastPolicy("scaled_dot_product_attention", DeviceType::CUDA), AutocastPolicy::Lower);
    // cuda runs softmax, layer_norm and sum in float32; the cpu leaves them in their input's dtype.
    EXPECT_EQ(autocastPolicy("softmax", DeviceType::CUDA), AutocastPolicy::Fp32Opt);
    EXPECT_EQ(autocastPolicy("softmax", DeviceType::CPU), AutocastPolicy::Keep);
    EXPECT_EQ(autocastPolicy("layer_norm", DeviceType::CUDA), AutocastPolicy::Fp32);
    EXPECT_EQ(autocastPolicy("layer_norm", DeviceType::CPU), AutocastPolicy::Keep);
    EXPECT_EQ(autocastPolicy("cross_entropy", DeviceType::CPU), AutocastPolicy::Fp32);
    EXPECT_EQ(autocastPolicy("cat", DeviceType::CPU), AutocastPolicy::Promote);
    EXPECT_EQ(autocastPolicy("cat", DeviceType::CUDA), AutocastPolicy::Keep);
    EXPECT_EQ(autocastPolicy("relu", DeviceType::CUDA), AutocastPolicy::Keep);
}

TEST(Autocast, RegistryCallsCastByPolicyOnlyWhileEnabled) {
    const Tensor a = ones({2, 3});
    const Tensor b = ones({3, 2});
    EXPECT_EQ(call("torch.matmul", {Value(a), Value(b)}).toTensor().dtype(), DType::Float32);
    {
        ScopedAutocast on({{true, DType::BFloat16}, {false, DType::Float16}});
        EXPECT_TRUE(autocastActive());
        EXPECT_EQ(call("torch.matmul", {Value(a), Value(b)}).toTensor().dtype(), DType::BFloat16);
        // float64 is never cast down; ops off the lists keep their inputs' dtype.
        const Tensor d = ones({2, 3}, TensorOptions{DType::Float64});
        const Tensor e = ones({3, 2}, TensorOptions{DType::Float64});
        EXPECT_EQ(call("torch.matmul", {Value(d), Value(e)}).toTensor().dtype(), DType::Float64);
        EXPECT_EQ(call("torch.relu", {Value(a)}).toTensor().dtype(), DType::Float32);
        // The cuda state does not touch cpu tensors.
        setAutocastState(DeviceType::CPU, {false, DType::BFloat16});
        setAutocastState(DeviceType::CUDA, {true, DType::Float16});
        EXPECT_EQ(call("torch.matmul", {Value(a), Value(b)}).toTensor().dtype(), DType::Float32);
    }
    EXPECT_FALSE(autocastActive());
}

TEST(Autocast, ObserverSeesEachCastAndSuspendTurnsCastingOff) {
    ScopedAutocast on({{true, DType::BFloat16}, {false, DType::Float16}});
    const Tensor a = ones({2, 3});
    const Tensor b = ones({3, 2});
    std::vector<std::pair<Tensor, DType>> casts;
    {
        AutocastObserverScope observe([&](const Tensor& from, DType to) { casts.emplace_back(from, to); });
        call("torch.mm", {Value(a), Value(b)});
    }
    ASSERT_EQ(casts.size(), 2u);
    EXPECT_TRUE(casts[0].first.isSameTensor(a));
    EXPECT_EQ(casts[1].second, DType::BFloat16);
    const AutocastSuspend off;
    EXPECT_FALSE(autocastActive());
    EXPECT_EQ(call("torch.mm", {Value(a), Value(b)}).toTensor().dtype(), DType::Float32);
}

}  // namespace
}  // namespace eng::tensor
