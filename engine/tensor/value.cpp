// Value accessors and reprs, and the conversions between Python data and tensors (torch.tensor, tolist,
// index tuples).
#include "tensor/value.h"

#include <fmt/format.h>

#include "tensor/conversion.h"
#include "tensor/creation.h"
#include "tensor/printing.h"
#include "tensor/shape.h"

namespace eng::tensor {

namespace {

[[noreturn]] void wrongKind(const Value& v, const char* wanted) {
    fail(ErrorKind::Type, fmt::format("expected {}, got {}", wanted, v.typeName()));
}

// Walks nested sequences: records the shape at first sight of each depth, checks later siblings against it,
// collects the leaves and the widest category seen.
struct DataWalk {
    Shape shape;
    std::vector<Scalar> leaves;
    bool anyFloat = false, anyInt = false, anyBool = false;
    std::optional<DType> tensorType;

    void visit(const Value& v, size_t depth) {
        if (v.isSequence()) {
            const ValueList& items = v.items();
            if (depth == shape.size()) {
                if (leaves.empty() && !sawLeafDepth_) shape.push_back(static_cast<int64_t>(items.size()));
                else fail(ErrorKind::Value, fmt::format("expected sequence of length {} at dim {} (got {})", 0, depth, items.size()));
            } else if (shape[depth] != static_cast<int64_t>(items.size())) {
                fail(ErrorKind::Value, fmt::format("expected sequence of length {} at dim {} (got {})", shape[depth], depth,
                                                   items.size()));
            }
            for (const Value& item : items) visit(item, depth + 1);
            return;
        }
        if (depth != shape.size())
            fail(ErrorKind::Value, fmt::format("expected sequence of length {} at dim {} (got 0)", shape.at(depth), depth));
        sawLeafDepth_ = true;
        if (v.isTensor()) {
            const Tensor& t = v.toTensor();
            if (t.numel() != 1) fail(ErrorKind::Value, "only one element tensors can be converted to Python scalars");
            tensorType = tensorType ? promoteTypes(*tensorType, t.dtype()) : t.dtype();
            leaves.push_back(item(t));
            return;
        }
        if (!v.isNumber()) fail(ErrorKind::Type, fmt::format("new(): invalid data type '{}'", v.typeName()));
        anyFloat = anyFloat || v.isFloat();
        anyInt = anyInt || v.isInt();
        anyBool = anyBool || v.isBool();
        leaves.push_back(v.toScalar());
    }

private:
    bool sawLeafDepth_ = false;
};

}  // namespace

Value::Value(Scalar s) {
    if (s.isBool()) *this = Value(s.toBool());
    else if (s.isFloat()) *this = Value(s.toDouble());
    else *this = Value(s.toInt());
}

Value Value::list(ValueList items) {
    Value v;
    v.kind_ = Kind::List;
    v.data_ = std::make_shared<const Sequence>(Sequence{std::move(items), {}, "list"});
    return v;
}

Value Value::tuple(ValueList items) {
    Value v;
    v.kind_ = Kind::Tuple;
    v.data_ = std::make_shared<const Sequence>(Sequence{std::move(items), {}, "tuple"});
    return v;
}

Value Value::namedTuple(std::string typeName, std::vector<std::string> fieldNames, ValueList items) {
    Value v;
    v.kind_ = Kind::Tuple;
    v.data_ = std::make_shared<const Sequence>(Sequence{std::move(items), std::move(fieldNames), std::move(typeName)});
    return v;
}

Value Value::size(const Shape& sizes) {
    ValueList items(sizes.begin(), sizes.end());
    Value v;
    v.kind_ = Kind::Tuple;
    v.data_ = std::make_shared<const Sequence>(Sequence{std::move(items), {}, "torch.Size"});
    return v;
}

bool Value::toBool() const {
    if (kind_ == Kind::Bool) return std::get<bool>(data_);
    if (kind_ == Kind::Int) return std::get<int64_t>(data_) != 0;
    if (kind_ == Kind::Float) return std::get<double>(data_) != 0.0;
    wrongKind(*this, "bool");
}

int64_t Value::toInt() const {
    if (kind_ == Kind::Int) return std::get<int64_t>(data_);
    if (kind_ == Kind::Bool) return std::get<bool>(data_) ? 1 : 0;
    if (kind_ == Kind::Tensor && isIntegral(toTensor().dtype(), true) && toTensor().numel() == 1) return item(toTensor()).toInt();
    wrongKind(*this, "int");
}

double Value::toDouble() const {
    if (kind_ == Kind::Float) return std::get<double>(data_);
    if (kind_ == Kind::Int) return static_cast<double>(std::get<int64_t>(data_));
    if (kind_ == Kind::Bool) return std::get<bool>(data_) ? 1.0 : 0.0;
    if (kind_ == Kind::Tensor && toTensor().numel() == 1) return item(toTensor()).toDouble();
    wrongKind(*this, "float");
}

Scalar Value::toScalar() const {
    switch (kind_) {
        case Kind::Bool: return Scalar(std::get<bool>(data_));
        case Kind::Int: return Scalar(std::get<int64_t>(data_));
        case Kind::Float: return Scalar(std::get<double>(data_));
        case Kind::Tensor: return item(toTensor());
        default: wrongKind(*this, "Number");
    }
}

const std::string& Value::toStr() const {
    if (kind_ != Kind::String) wrongKind(*this, "str");
    return std::get<std::string>(data_);
}

const Tensor& Value::toTensor() const {
    if (kind_ != Kind::Tensor) wrongKind(*this, "Tensor");
    return std::get<Tensor>(data_);
}

DType Value::toDType() const {
    if (kind_ != Kind::DType) wrongKind(*this, "torch.dtype");
    return std::get<DType>(data_);
}

Device Value::toDevice() const {
    if (kind_ == Kind::Device) return std::get<Device>(data_);
    if (kind_ == Kind::String) return Device::parse(std::get<std::string>(data_));
    if (kind_ == Kind::Int) return Device(DeviceType::CUDA, static_cast<int>(std::get<int64_t>(data_)));
    wrongKind(*this, "torch.device");
}

const Slice& Value::toSlice() const {
    if (kind_ != Kind::Slice) wrongKind(*this, "slice");
    return std::get<Slice>(data_);
}

const Sequence& Value::sequence() const {
    if (!isSequence()) wrongKind(*this, "list or tuple");
    return *std::get<std::shared_ptr<const Sequence>>(data_);
}

std::string Value::typeName() const {
    switch (kind_) {
        case Kind::None: return "NoneType";
        case Kind::Bool: return "bool";
        case Kind::Int: return "int";
        case Kind::Float: return "float";
        case Kind::String: return "str";
        case Kind::Tensor: return "Tensor";
        case Kind::DType: return "torch.dtype";
        case Kind::Device: return "torch.device";
        case Kind::List:
        case Kind::Tuple: return sequence().typeName;
        case Kind::Slice: return "slice";
        case Kind::Ellipsis: return "ellipsis";
    }
    return "object";
}

std::string Value::repr() const {
    switch (kind_) {
        case Kind::None: return "None";
        case Kind::Bool:
        case Kind::Int:
        case Kind::Float: return toScalar().str();
        case Kind::String: return "'" + toStr() + "'";
        case Kind::Tensor: return eng::tensor::repr(toTensor());
        case Kind::DType: return fmt::format("torch.{}", dtypeName(toDType()));
        case Kind::Device: return fmt::format("device(type='{}'{})", toDevice().isCpu() ? "cpu" : "cuda",
                                              toDevice().index() >= 0 ? fmt::format(", index={}", toDevice().index()) : "");
        case Kind::Slice: {
            auto part = [](const std::optional<int64_t>& p) { return p ? std::to_string(*p) : std::string("None"); };
            const Slice& s = toSlice();
            return fmt::format("slice({}, {}, {})", part(s.start), part(s.stop), part(s.step));
        }
        case Kind::Ellipsis: return "Ellipsis";
        case Kind::List:
        case Kind::Tuple: break;
    }
    const Sequence& seq = sequence();
    std::vector<std::string> parts;
    for (size_t i = 0; i < seq.items.size(); ++i)
        parts.push_back(seq.fieldNames.empty() ? seq.items[i].repr() : seq.fieldNames[i] + "=" + seq.items[i].repr());
    const std::string joined = fmt::format("{}", fmt::join(parts, ", "));
    if (kind_ == Kind::List) return "[" + joined + "]";
    if (seq.typeName == "torch.Size") return "torch.Size([" + joined + "])";
    if (!seq.fieldNames.empty()) return seq.typeName + "(\n" + joined + ")";
    return seq.items.size() == 1 ? "(" + joined + ",)" : "(" + joined + ")";
}

Tensor tensorFromData(const Value& data, std::optional<DType> dtype, Device device) {
    if (data.isTensor()) return to(clone(data.toTensor()), dtype, device);
    DataWalk walk;
    walk.visit(data, 0);
    DType inferred = walk.anyFloat ? kDefaultFloat : walk.anyInt ? DType::Int64 : walk.anyBool ? DType::Bool : kDefaultFloat;
    if (walk.tensorType) {
        // Tensor leaves: their dtype joins Python numbers by category, like torch.tensor does.
        ResultTypeBuilder types;
        types.addTensor(*walk.tensorType, 1);
        if (walk.anyFloat) types.addScalar(ScalarKind::Float);
        else if (walk.anyInt) types.addScalar(ScalarKind::Int);
        inferred = types.result();
    }
    const DType target = dtype.value_or(inferred);
    Tensor out = empty(walk.shape, target);
    dispatchDType(target, [&]<typename T>() {
        T* p = out.dataAs<T>();
        for (size_t i = 0; i < walk.leaves.size(); ++i) p[i] = walk.leaves[i].to<T>();
    });
    return device.isCpu() ? out : to(out, std::nullopt, device);
}

Value tensorToList(const Tensor& t) {
    if (!t.device().isCpu()) return tensorToList(to(t, std::nullopt, kCpu));  // one transfer, not one per element
    if (t.dim() == 0) return Value(item(t));
    ValueList items;
    for (int64_t i = 0; i < t.sizes()[0]; ++i) items.push_back(tensorToList(select(t, 0, i)));
    return Value::list(std::move(items));
}

std::vector<TensorIndex> toTensorIndices(const Value& index) {
    auto one = [](const Value& v) -> TensorIndex {
        switch (v.kind()) {
            case Value::Kind::None: return TensorIndex::none();
            case Value::Kind::Bool: return TensorIndex::fromBool(v.toBool());
            case Value::Kind::Int: return TensorIndex::fromInteger(v.toInt());
            case Value::Kind::Slice: {
                const Slice& s = v.toSlice();
                return TensorIndex::fromSlice(s.start, s.stop, s.step);
            }
            case Value::Kind::Ellipsis: return TensorIndex::ellipsis();
            case Value::Kind::Tensor: return TensorIndex::fromTensor(v.toTensor());
            case Value::Kind::List:
            case Value::Kind::Tuple: return TensorIndex::fromTensor(tensorFromData(v));
            default:
                fail(ErrorKind::Index, "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                                       "indices (got " + v.typeName() + ")");
        }
    };
    if (index.kind() == Value::Kind::Tuple) {
        std::vector<TensorIndex> out;
        for (const Value& v : index.items()) out.push_back(one(v));
        return out;
    }
    return {one(index)};
}

}  // namespace eng::tensor
