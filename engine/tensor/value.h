// Value: the dynamically typed argument and result of registry calls (Python's None, bool, int, float, str,
// Tensor, torch.dtype, torch.device, list, tuple/torch.Size/named tuple, slice, Ellipsis). The VM converts its
// objects to and from these at the op boundary.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tensor/indexing.h"
#include "tensor/tensor.h"

namespace eng::tensor {

struct Slice {
    std::optional<int64_t> start, stop, step;
};
struct EllipsisTag {};

class Value;
using ValueList = std::vector<Value>;

struct Sequence {
    ValueList items;
    // Field names of a named tuple such as torch.return_types.max (values, indices); empty otherwise.
    std::vector<std::string> fieldNames;
    // Python type for display: "list", "tuple", "torch.Size", "torch.return_types.max", ...
    std::string typeName;
};

class Value {
public:
    enum class Kind { None, Bool, Int, Float, String, Tensor, DType, Device, List, Tuple, Slice, Ellipsis };

    Value() = default;
    Value(bool b) : kind_(Kind::Bool), data_(b) {}  // NOLINT
    template <typename I>
        requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
    Value(I i) : kind_(Kind::Int), data_(static_cast<int64_t>(i)) {}  // NOLINT
    Value(double d) : kind_(Kind::Float), data_(d) {}  // NOLINT
    Value(std::string s) : kind_(Kind::String), data_(std::move(s)) {}  // NOLINT
    Value(const char* s) : Value(std::string(s)) {}  // NOLINT
    Value(Tensor t) : kind_(Kind::Tensor), data_(std::move(t)) {}  // NOLINT
    Value(DType d) : kind_(Kind::DType), data_(d) {}  // NOLINT
    Value(Device d) : kind_(Kind::Device), data_(d) {}  // NOLINT
    Value(Slice s) : kind_(Kind::Slice), data_(s) {}  // NOLINT
    Value(EllipsisTag e) : kind_(Kind::Ellipsis), data_(e) {}  // NOLINT
    Value(Scalar s);  // NOLINT: bool, int or float by the scalar's kind

    static Value list(ValueList items);
    static Value tuple(ValueList items);
    static Value namedTuple(std::string typeName, std::vector<std::string> fieldNames, ValueList items);
    // torch.Size(sizes): a tuple of ints that prints as torch.Size([...]).
    static Value size(const Shape& sizes);

    Kind kind() const { return kind_; }
    bool isNone() const { return kind_ == Kind::None; }
    bool isBool() const { return kind_ == Kind::Bool; }
    bool isInt() const { return kind_ == Kind::Int; }
    bool isFloat() const { return kind_ == Kind::Float; }
    bool isNumber() const { return kind_ == Kind::Bool || kind_ == Kind::Int || kind_ == Kind::Float; }
    bool isString() const { return kind_ == Kind::String; }
    bool isTensor() const { return kind_ == Kind::Tensor; }
    bool isSequence() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }

    bool toBool() const;
    int64_t toInt() const;
    double toDouble() const;  // ints and bools widen
    Scalar toScalar() const;
    const std::string& toStr() const;
    const Tensor& toTensor() const;
    DType toDType() const;
    Device toDevice() const;
    const Slice& toSlice() const;
    const Sequence& sequence() const;
    const ValueList& items() const { return sequence().items; }

    // Python's type name, for error messages ("Tensor", "int", "list", "NoneType", ...).
    std::string typeName() const;
    // Python's repr: "None", "True", "2.5", "'s'", "[1, 2]", "torch.Size([2, 3])", "tensor(...)", ...
    std::string repr() const;

private:
    Kind kind_ = Kind::None;
    std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, DType, Device,
                 std::shared_ptr<const Sequence>, Slice, EllipsisTag>
        data_;
};

// torch.tensor(data): nested lists/tuples of numbers (or one-element tensors), shape and dtype inferred as
// PyTorch does (bool < int64 < default float), ValueError for ragged nesting.
Tensor tensorFromData(const Value& data, std::optional<DType> dtype = std::nullopt, Device device = kCpu);
// Tensor.tolist(): nested lists of Python numbers; a 0-dim tensor gives the number itself.
Value tensorToList(const Tensor& t);
// A Python index (int, slice, None, Ellipsis, bool, tensor, list, or a tuple of those) as TensorIndex list.
std::vector<TensorIndex> toTensorIndices(const Value& index);

}  // namespace eng::tensor
