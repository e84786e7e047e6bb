// The operator registry: every torch.* function, Tensor method/operator, F.* function and nn.init helper the
// VM can call, looked up by qualified name ("torch.sum", "Tensor.sum", "Tensor.__add__", "F.softmax",
// "torch.nn.functional.softmax"), each with PyTorch-style schemas that bind positional and keyword arguments.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensor/value.h"

namespace eng::tensor {

// One parameter of a schema such as "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None)".
struct Param {
    enum class Type { Tensor, Scalar, Int, Float, Bool, ScalarType, Device, Str, Any, TensorList, IntList, FloatList };
    std::string name;
    Type type = Type::Any;
    bool optional = false;   // "T?": None allowed
    bool keywordOnly = false;  // after "*"
    bool hasDefault = false;
    Value defaultValue;
    /// The op writes this argument: PyTorch's alias annotation "Tensor(a!)" (self of every in-place variant is
    /// marked by its name, see ops/in_place.h). "Tensor(a! if training)" writes it only when the named bool argument
    /// is true (batch_norm's running statistics, F.relu's input with inplace=True).
    bool written = false;
    std::string writtenWhen;  // that bool argument's name; empty: always written
};

struct Schema {
    std::string name;
    std::vector<Param> params;
    // "x.view(2, 3)": the single positional int[] parameter also takes the ints as separate arguments.
    bool intListVarargs = false;
    // "broadcast_tensors(Tensor[] *tensors)": the Tensor[] parameter also takes the tensors as separate arguments.
    bool tensorListVarargs = false;
    std::string text;  // as written, for error messages
};

Schema parseSchema(std::string_view text);

// Arguments bound to one schema, in parameter order, defaults filled in and types normalised (an int for an
// int[] parameter became a one-element list, a device string became a Device, ...).
class Args {
public:
    explicit Args(std::vector<Value> values) : values_(std::move(values)) {}
    size_t size() const { return values_.size(); }
    const Value& operator[](size_t i) const { return values_.at(i); }
    bool isNone(size_t i) const { return values_.at(i).isNone(); }

    const Tensor& tensor(size_t i) const { return values_.at(i).toTensor(); }
    // Undefined Tensor for None.
    Tensor optTensor(size_t i) const { return isNone(i) ? Tensor() : tensor(i); }
    Scalar scalar(size_t i) const { return values_.at(i).toScalar(); }
    std::optional<Scalar> optScalar(size_t i) const;
    int64_t integer(size_t i) const { return values_.at(i).toInt(); }
    std::optional<int64_t> optInteger(size_t i) const;
    double real(size_t i) const { return values_.at(i).toDouble(); }
    std::optional<double> optReal(size_t i) const;
    bool boolean(size_t i) const { return values_.at(i).toBool(); }
    std::optional<bool> optBoolean(size_t i) const;
    std::vector<int64_t> intList(size_t i) const;
    std::optional<std::vector<int64_t>> optIntList(size_t i) const;
    std::vector<Tensor> tensorList(size_t i) const;
    std::optional<DType> optDType(size_t i) const;
    std::optional<Device> optDevice(size_t i) const;
    const std::string& str(size_t i) const { return values_.at(i).toStr(); }
    std::optional<std::string> optStr(size_t i) const;

private:
    std::vector<Value> values_;
};

/// Whether a call bound to `schema` writes its parameter `index` (always, or under a flag that `args` sets): the
/// one answer to "this op writes its argument" for eager autograd, the capture engine, functionalisation and the
/// lowering (fx::writtenArguments reads the same marks for graph nodes).
bool writesArgument(const Schema& schema, const Args& args, size_t index);

using Kernel = std::function<Value(const Args&)>;
/// An op's `out=` form that writes its result straight into `out`: false, with nothing written, when `out` cannot
/// take it as it is (another shape, dtype, device or layout, memory shared with an input); the registry then computes
/// a fresh result and copies it.
using OutKernel = std::function<bool(const Args&, const Tensor& out)>;
using KeywordArgs = std::vector<std::pair<std::string, Value>>;

struct OpOverload {
    Schema schema;
    Kernel kernel;
    OutKernel intoOut;  // may be empty
};

// All overloads registered under one qualified name; tried in registration order, the first that binds wins
// (PyTorch's python_arg_parser does the same).
struct OpEntry {
    std::string name;
    std::vector<OpOverload> overloads;
};

class OpRegistry {
public:
    // The registry with every op of this runtime, built on first use.
    static const OpRegistry& instance();

    const OpEntry* find(std::string_view qualifiedName) const;
    bool contains(std::string_view qualifiedName) const { return find(qualifiedName) != nullptr; }
    // Calls an op: TypeError (as TensorError) when no overload binds, with PyTorch-like wording.
    Value call(std::string_view qualifiedName, std::span<const Value> args, const KeywordArgs& kwargs = {}) const;
    Value call(const OpEntry& entry, std::span<const Value> args, const KeywordArgs& kwargs = {}) const;
    std::vector<std::string> names() const;

    // Registers one schema under several qualified names ("torch.sum", "Tensor.sum").
    void def(const std::vector<std::string>& names, std::string_view schema, Kernel kernel, OutKernel intoOut = {});

    // Attributes read as x.shape, x.dtype, ... (registered as "Tensor.<name>" taking only self).
    static bool isTensorProperty(std::string_view name);

private:
    std::unordered_map<std::string, OpEntry> entries_;
};

// Registration of each op family (one file each).
void registerCreationOps(OpRegistry& registry);
void registerPointwiseOps(OpRegistry& registry);
void registerOperatorOps(OpRegistry& registry);
void registerReductionOps(OpRegistry& registry);
void registerShapeOps(OpRegistry& registry);
void registerTensorMethodOps(OpRegistry& registry);
void registerNnOps(OpRegistry& registry);
void registerComplexOps(OpRegistry& registry);
// Seeds, generator states, torch.Generator objects and the in-place random fills (registry_random.cpp).
void registerRandomOps(OpRegistry& registry);
// Ops made of registry calls, whose autograd records their parts (registry_composite.cpp).
void registerCompositeOps(OpRegistry& registry);
bool isCompositeOp(std::string_view schemaName);
// Tensor.backward, retain_grad, grad_fn, is_leaf, retains_grad, torch.autograd.backward (tensor/autograd/).
void registerAutogradOps(OpRegistry& registry);

}  // namespace eng::tensor
