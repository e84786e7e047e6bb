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

bool DictObject::keyedByIdentity(const Value& key) {
    // valuesEqual compares these kinds by value (numbers across kinds, strings, containers) or across kinds
    // (a device equals its string spelling); every other object equals only itself.
    switch (key.kind()) {
        case Kind::Null:
        case Kind::None:
        case Kind::Bool:
        case Kind::Int:
        case Kind::Float:
        case Kind::Str:
        case Kind::DType:
        case Kind::Device:
        case Kind::List:
        case Kind::Tuple:
        case Kind::Dict:
        case Kind::Set: return false;
        default: return true;
    }
}

Value* DictObject::findIndexed(const Object* key) {
    if (indexStale_) {
        byIdentity_.clear();
        for (size_t i = 0; i < entries_.size(); ++i)
            if (keyedByIdentity(entries_[i].first)) byIdentity_.emplace(entries_[i].first.object().get(), i);
        indexStale_ = false;
    }
    auto it = byIdentity_.find(key);
    return it == byIdentity_.end() ? nullptr : &entries_[it->second].second;
}

Value* DictObject::find(const Value& key) {
    if (keyedByIdentity(key)) return findIndexed(key.object().get());
    for (auto& entry : entries_)
        if (valuesEqual(entry.first, key)) return &entry.second;
    return nullptr;
}

void DictObject::set(const Value& key, Value value) {
    if (Value* slot = find(key)) {
        *slot = std::move(value);
        return;
    }
    if (keyedByIdentity(key) && !indexStale_) byIdentity_.emplace(key.object().get(), entries_.size());
    entries_.emplace_back(key, std::move(value));
}

bool DictObject::erase(const Value& key) {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return valuesEqual(e.first, key); });
    if (it == entries_.end()) return false;
    entries_.erase(it);
    indexStale_ = true;
    return true;
}

void DictObject::clear() {
    entries_.clear();
    byIdentity_.clear();
    indexStale_ = false;
}

bool DictObject::moveToEnd(const Value& key, bool last) {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return valuesEqual(e.first, key); });
    if (it == entries_.end()) return false;
    Entry entry = *it;
    entries_.erase(it);
    if (last) entries_.push_back(std::move(entry));
    else entries_.insert(entries_.begin(), std::move(entry));
    indexStale_ = true;
    return true;
}

DictObject::Entry DictObject::popItem(bool last) {
    Entry entry = last ? entries_.back() : entries_.front();
    entries_.erase(last ? entries_.end() - 1 : entries_.begin());
    indexStale_ = true;
    return entry;
}

bool SetObject::contains(const Value& v) const {
    return std::any_of(items.begin(), items.end(), [&](const Value& item) { return valuesEqual(item, v); });
}

void SetObject::add(const Value& v) {
    if (!contains(v)) items.push_back(v);
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
