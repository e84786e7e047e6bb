// Value accessors, the container helpers and the conversions to and from the tensor runtime's values.
#include "vm/value.h"

#include <algorithm>

#include "tensor/random.h"
#include "tensor/registry.h"
#include "vm/errors.h"
#include "vm/torch_generator.h"

namespace eng::vm {

const std::string& Value::str() const { return as<StrObject>().value; }
const tensor::Tensor& Value::tensor() const { return as<TensorObject>().value; }

bool Value::identical(const Value& other) const {
    if (kind_ != other.kind_) return false;
    switch (kind_) {
        case Kind::Null:
        case Kind::None: return true;
        case Kind::Bool: return asBool() == other.asBool();
        case Kind::Int: return asInt() == other.asInt();
        case Kind::Float: return asFloat() == other.asFloat();
        default: return object() == other.object();
    }
}

std::optional<size_t> DictObject::position(const Value& key, int64_t hash) {
    if (indexStale_) {
        byHash_.clear();
        for (size_t i = 0; i < entries_.size(); ++i) byHash_.emplace(hashes_[i], i);
        indexStale_ = false;
    }
    auto [first, last] = byHash_.equal_range(hash);
    for (auto it = first; it != last; ++it)
        if (keyMatches(entries_[it->second].first, hash, key, hash)) return it->second;
    return std::nullopt;
}

Value* DictObject::find(const Value& key) {
    std::optional<size_t> at = position(key, hashValue(key));
    return at ? &entries_[*at].second : nullptr;
}

void DictObject::set(const Value& key, Value value) {
    const int64_t hash = hashValue(key);
    if (std::optional<size_t> at = position(key, hash)) {
        entries_[*at].second = std::move(value);
        return;
    }
    byHash_.emplace(hash, entries_.size());
    entries_.emplace_back(key, std::move(value));
    hashes_.push_back(hash);
}

bool DictObject::erase(const Value& key) {
    std::optional<size_t> at = position(key, hashValue(key));
    if (!at) return false;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(*at));
    hashes_.erase(hashes_.begin() + static_cast<std::ptrdiff_t>(*at));
    indexStale_ = true;
    return true;
}

void DictObject::clear() {
    entries_.clear();
    hashes_.clear();
    byHash_.clear();
    indexStale_ = false;
}

bool DictObject::moveToEnd(const Value& key, bool last) {
    std::optional<size_t> at = position(key, hashValue(key));
    if (!at) return false;
    const auto offset = static_cast<std::ptrdiff_t>(*at);
    Entry entry = entries_[*at];
    const int64_t hash = hashes_[*at];
    entries_.erase(entries_.begin() + offset);
    hashes_.erase(hashes_.begin() + offset);
    entries_.insert(last ? entries_.end() : entries_.begin(), std::move(entry));
    hashes_.insert(last ? hashes_.end() : hashes_.begin(), hash);
    indexStale_ = true;
    return true;
}

DictObject::Entry DictObject::popItem(bool last) {
    Entry entry = last ? entries_.back() : entries_.front();
    entries_.erase(last ? entries_.end() - 1 : entries_.begin());
    hashes_.erase(last ? hashes_.end() - 1 : hashes_.begin());
    indexStale_ = true;
    return entry;
}

bool SetObject::contains(const Value& v) const {
    const int64_t hash = hashValue(v);
    return std::any_of(items.begin(), items.end(), [&](const Value& item) {
        return item.identical(v) || (hashValue(item) == hash && valuesEqual(item, v));
    });
}

void SetObject::add(const Value& v) {
    if (!contains(v)) items.push_back(v);
}

bool SetObject::erase(const Value& v) {
    const int64_t hash = hashValue(v);
    auto it = std::find_if(items.begin(), items.end(), [&](const Value& item) {
        return item.identical(v) || (hashValue(item) == hash && valuesEqual(item, v));
    });
    if (it == items.end()) return false;
    items.erase(it);
    return true;
}

std::optional<Value> CallArgs::take(const std::string& name) {
    for (auto it = keywords.begin(); it != keywords.end(); ++it) {
        if (it->first != name) continue;
        Value v = std::move(it->second);
        keywords.erase(it);
        return v;
    }
    return std::nullopt;
}

Value makeStr(std::string s) { return Value(std::make_shared<StrObject>(std::move(s))); }
Value makeTensor(tensor::Tensor t) { return Value(std::make_shared<TensorObject>(std::move(t))); }
Value makeList(ValueList items) { return Value(std::make_shared<ListObject>(std::move(items))); }
Value makeTuple(ValueList items) { return Value(std::make_shared<TupleObject>(std::move(items))); }
Value makeNative(std::string name, NativeFn fn) { return Value(std::make_shared<NativeObject>(std::move(name), std::move(fn))); }
Value ellipsisValue() {
    static const Value kEllipsis(std::make_shared<EllipsisObject>());
    return kEllipsis;
}

namespace {

bool sequencesEqual(const ValueList& a, const ValueList& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!valuesEqual(a[i], b[i])) return false;
    return true;
}

}  // namespace

bool valuesEqual(const Value& a, const Value& b) {
    if (a.identical(b)) return true;
    if (a.is(Kind::Instance) || b.is(Kind::Instance)) {
        InstanceProtocol* protocol = currentInstanceProtocol();
        return protocol && protocol->instanceEquals(a, b);
    }
    if (a.isNumber() && b.isNumber()) {
        if (a.is(Kind::Float) || b.is(Kind::Float)) return a.asFloat() == b.asFloat();
        return a.asInt() == b.asInt();
    }
    // torch.device compares equal to its string spelling ("cpu", "cuda:0").
    if (a.is(Kind::Device) && b.is(Kind::Str)) {
        try {
            return a.as<DeviceObject>().value == tensor::Device::parse(b.str());
        } catch (const std::exception&) {
            return false;  // not a device spelling at all
        }
    }
    if (a.is(Kind::Str) && b.is(Kind::Device)) return valuesEqual(b, a);
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case Kind::None: return true;
        case Kind::Str: return a.str() == b.str();
        case Kind::List: return sequencesEqual(a.as<ListObject>().items, b.as<ListObject>().items);
        case Kind::Tuple: return sequencesEqual(a.as<TupleObject>().items, b.as<TupleObject>().items);
        case Kind::DType: return a.as<DTypeObject>().value == b.as<DTypeObject>().value;
        case Kind::Device: return a.as<DeviceObject>().value == b.as<DeviceObject>().value;
        case Kind::Dict: {
            auto& x = a.as<DictObject>();
            auto& y = b.as<DictObject>();
            if (x.size() != y.size()) return false;
            for (auto& [key, value] : x.entries()) {
                Value* other = y.find(key);
                if (!other || !valuesEqual(value, *other)) return false;
            }
            return true;
        }
        case Kind::Set: {
            auto& x = a.as<SetObject>();
            auto& y = b.as<SetObject>();
            return x.items.size() == y.items.size() &&
                   std::all_of(x.items.begin(), x.items.end(), [&](const Value& v) { return y.contains(v); });
        }
        default: return a.identical(b);
    }
}

namespace {

std::optional<int64_t> sliceBound(const Value& v) {
    if (v.isNone()) return std::nullopt;
    if (v.is(Kind::Int) || v.is(Kind::Bool)) return v.asInt();
    if (v.is(Kind::Tensor)) return tensor::Value(v.tensor()).toInt();
    typeError("slice indices must be integers or None or have an __index__ method");
}

}  // namespace

std::optional<std::string> legacyTensorTypeName(const ClassObject& cls) {
    if ((cls.module != "torch" && cls.module != "torch.cuda") || cls.name == "Tensor" || !cls.name.ends_with("Tensor")) return std::nullopt;
    return cls.module + "." + cls.name;
}

tensor::Value toTensorValue(const Value& v) {
    switch (v.kind()) {
        case Kind::None: return tensor::Value();
        case Kind::Bool: return tensor::Value(v.asBool());
        case Kind::Int: return tensor::Value(v.asInt());
        case Kind::Float: return tensor::Value(v.asFloat());
        case Kind::Str: return tensor::Value(v.str());
        case Kind::Tensor: return tensor::Value(v.tensor());
        case Kind::DType: return tensor::Value(v.as<DTypeObject>().value);
        case Kind::Device: return tensor::Value(v.as<DeviceObject>().value);
        case Kind::Ellipsis: return tensor::Value(tensor::EllipsisTag{});
        case Kind::Class:
            if (auto name = legacyTensorTypeName(v.as<ClassObject>())) return tensor::Value(*name);
            typeError("unsupported argument type for a torch operation");
        case Kind::Slice: {
            auto& s = v.as<SliceObject>();
            return tensor::Value(tensor::Slice{sliceBound(s.start), sliceBound(s.stop), sliceBound(s.step)});
        }
        case Kind::List:
        case Kind::Tuple: {
            const ValueList& items = v.is(Kind::List) ? v.as<ListObject>().items : v.as<TupleObject>().items;
            tensor::ValueList converted;
            converted.reserve(items.size());
            for (const Value& item : items) converted.push_back(toTensorValue(item));
            if (v.is(Kind::List)) return tensor::Value::list(std::move(converted));
            const auto& tuple = v.as<TupleObject>();
            if (tuple.typeName == "tuple") return tensor::Value::tuple(std::move(converted));
            return tensor::Value::namedTuple(tuple.typeName, tuple.fieldNames, std::move(converted));
        }
        case Kind::Instance:
            if (auto* generator = dynamic_cast<TorchGeneratorObject*>(v.object().get())) return tensor::generatorValue(generator->id);
            typeError("unsupported argument type for a torch operation");
        default: typeError("unsupported argument type for a torch operation");
    }
}

Value fromTensorValue(const tensor::Value& v) {
    using K = tensor::Value::Kind;
    switch (v.kind()) {
        case K::None: return Value();
        case K::Bool: return Value(v.toBool());
        case K::Int: return Value(v.toInt());
        case K::Float: return Value(v.toDouble());
        case K::String: return makeStr(v.toStr());
        case K::Tensor: return makeTensor(v.toTensor());
        case K::DType: return Value(std::make_shared<DTypeObject>(v.toDType()));
        case K::Device: return Value(std::make_shared<DeviceObject>(v.toDevice()));
        case K::Ellipsis: return ellipsisValue();
        case K::Slice: {
            const tensor::Slice& s = v.toSlice();
            auto bound = [](const std::optional<int64_t>& b) { return b ? Value(*b) : Value(); };
            return Value(std::make_shared<SliceObject>(bound(s.start), bound(s.stop), bound(s.step)));
        }
        case K::List:
        case K::Tuple: {
            ValueList items;
            for (const tensor::Value& item : v.items()) items.push_back(fromTensorValue(item));
            if (v.kind() == K::List) return makeList(std::move(items));
            auto tuple = std::make_shared<TupleObject>(std::move(items));
            tuple->typeName = v.sequence().typeName.empty() ? "tuple" : v.sequence().typeName;
            tuple->fieldNames = v.sequence().fieldNames;
            return Value(tuple);
        }
    }
    return Value();
}

Value callOp(const std::string& name, const ValueList& args, const KwArgs& kwargs) {
    tensor::ValueList positional;
    positional.reserve(args.size());
    for (const Value& a : args) positional.push_back(toTensorValue(a));
    tensor::KeywordArgs keywords;
    for (const auto& [key, v] : kwargs) keywords.emplace_back(key, toTensorValue(v));
    return fromTensorValue(tensor::OpRegistry::instance().call(name, positional, keywords));
}

}  // namespace eng::vm
