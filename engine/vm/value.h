// The VM's dynamically typed values: scalars inline (None, bool, int, float), everything else a shared
// Object (str, tensors, containers, functions, classes, instances, modules, iterators, cells).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "tensor/tensor.h"
#include "tensor/value.h"

// Code objects are the front end's: the VM holds them by pointer only, so that the layers above it (the graph layer,
// the backends) do not see the front end through the VM's headers.
namespace eng::frontend {
struct CodeObject;
}

namespace eng::vm {

enum class Kind : uint8_t {
    Null,  // the CALL convention's empty self slot; never visible to programs
    None,
    Bool,
    Int,
    Float,
    Str,
    Tensor,
    DType,
    Device,
    List,
    Tuple,
    Dict,
    Set,
    Slice,
    Ellipsis,
    Function,
    BoundMethod,
    Native,
    Class,
    Instance,
    Module,
    Cell,
    Iterator,
    Super,
    Code,  // a nested code object on its way to MAKE_FUNCTION
};

struct Object {
    explicit Object(Kind k) : kind(k) {}
    virtual ~Object() = default;
    Kind kind;
};

class Value {
public:
    Value() = default;
    static Value null() {
        Value v;
        v.kind_ = Kind::Null;
        return v;
    }
    Value(bool b) : kind_(Kind::Bool), data_(b) {}  // NOLINT
    template <typename I>
        requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
    Value(I i) : kind_(Kind::Int), data_(static_cast<int64_t>(i)) {}  // NOLINT
    Value(double d) : kind_(Kind::Float), data_(d) {}                 // NOLINT
    Value(std::shared_ptr<Object> object) : kind_(object->kind), data_(std::move(object)) {}  // NOLINT

    Kind kind() const { return kind_; }
    bool is(Kind k) const { return kind_ == k; }
    bool isNone() const { return kind_ == Kind::None; }
    bool isNull() const { return kind_ == Kind::Null; }
    bool isNumber() const { return kind_ == Kind::Bool || kind_ == Kind::Int || kind_ == Kind::Float; }
    bool asBool() const { return std::get<bool>(data_); }
    int64_t asInt() const { return kind_ == Kind::Bool ? int64_t{std::get<bool>(data_)} : std::get<int64_t>(data_); }
    double asFloat() const { return kind_ == Kind::Float ? std::get<double>(data_) : static_cast<double>(asInt()); }
    const std::shared_ptr<Object>& object() const { return std::get<std::shared_ptr<Object>>(data_); }
    template <typename T>
    T& as() const {
        return static_cast<T&>(*object());
    }
    template <typename T>
    std::shared_ptr<T> ref() const {
        return std::static_pointer_cast<T>(object());
    }
    const std::string& str() const;
    const tensor::Tensor& tensor() const;
    /// Same object (or equal scalar): Python's `is`.
    bool identical(const Value& other) const;

private:
    Kind kind_ = Kind::None;
    std::variant<std::monostate, bool, int64_t, double, std::shared_ptr<Object>> data_;
};

using ValueList = std::vector<Value>;
using KwArgs = std::vector<std::pair<std::string, Value>>;
using Namespace = std::unordered_map<std::string, Value>;

struct ClassObject;

struct StrObject : Object {
    explicit StrObject(std::string v) : Object(Kind::Str), value(std::move(v)) {}
    std::string value;
};
struct TensorObject : Object {
    explicit TensorObject(tensor::Tensor t, bool isParameter = false)
        : Object(Kind::Tensor), value(std::move(t)), parameter(isParameter) {}
    tensor::Tensor value;
    bool parameter;  // made by nn.Parameter: modules register it on attribute assignment
    /// torch._dynamo.mark_dynamic / maybe_mark_dynamic: dims the capture engine keeps symbolic from the first compile.
    std::vector<int64_t> dynamicMarks;
    /// torch._dynamo.mark_static: dims kept static whatever automatic dynamic or dynamic=True would make of them.
    std::vector<int64_t> staticMarks;
    bool staticAddress = false;  // torch._dynamo.mark_static_address: CUDA graphs read it in place
};
struct DTypeObject : Object {
    explicit DTypeObject(tensor::DType d) : Object(Kind::DType), value(d) {}
    tensor::DType value;
};
struct DeviceObject : Object {
    explicit DeviceObject(tensor::Device d) : Object(Kind::Device), value(d) {}
    tensor::Device value;
};
struct ListObject : Object {
    explicit ListObject(ValueList v = {}) : Object(Kind::List), items(std::move(v)) {}
    ValueList items;
};
struct TupleObject : Object {
    explicit TupleObject(ValueList v = {}) : Object(Kind::Tuple), items(std::move(v)) {}
    ValueList items;
    std::string typeName = "tuple";       // torch.Size, torch.return_types.max, ...
    std::vector<std::string> fieldNames;  // named tuples: their attributes
    std::shared_ptr<ClassObject> cls;     // a collections.namedtuple class; null for tuple and the runtime's named tuples
    /// Takes the other tuple's type (name, fields, class): a rebuilt tuple is of the same type.
    void copyTypeFrom(const TupleObject& other) {
        typeName = other.typeName;
        fieldNames = other.fieldNames;
        cls = other.cls;
    }
};
/// Insertion-ordered; keys found as Python finds them: by hash (hashValue), then the same object or == (valuesEqual,
/// which runs a user class's __eq__). Each entry's hash is kept beside it, so a key's __hash__ runs once when it is
/// stored and once per lookup, as in CPython, and an index by hash makes every lookup (an optimizer's state dict
/// keyed by hundreds of parameters) no linear scan. Keys change only through the methods below, which keep the index.
struct DictObject : Object {
    using Entry = std::pair<Value, Value>;
    DictObject() : Object(Kind::Dict) {}
    /// A dict subclass of the collections module (OrderedDict, defaultdict, Counter); null for dict.
    std::shared_ptr<ClassObject> cls;
    Value defaultFactory;  // defaultdict's default_factory

    const std::vector<Entry>& entries() const { return entries_; }
    size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    /// The value under `key`; null when absent. TypeError for an unhashable key, as Python's lookup raises.
    Value* find(const Value& key);
    void set(const Value& key, Value value);
    bool erase(const Value& key);
    void clear();
    /// OrderedDict.move_to_end: false when the key is absent.
    bool moveToEnd(const Value& key, bool last);
    /// OrderedDict.popitem (the dict is not empty).
    Entry popItem(bool last);

private:
    std::vector<Entry> entries_;
    std::vector<int64_t> hashes_;                      // entries_[i]'s key hash
    std::unordered_multimap<int64_t, size_t> byHash_;  // hash -> positions in entries_
    bool indexStale_ = false;                          // positions shifted: rebuilt on the next lookup
    /// Where `key` (of hash `hash`) is stored.
    std::optional<size_t> position(const Value& key, int64_t hash);
};
/// Insertion-ordered elements, matched as dict keys are (hash, then the same object or ==). `items` is written
/// directly by the set methods, which keep it free of duplicates through contains().
struct SetObject : Object {
    SetObject() : Object(Kind::Set) {}
    ValueList items;
    bool frozen = false;  // a frozenset: no mutating methods, and operators keep the left operand's type
    /// `v in s`: TypeError for an unhashable `v`.
    bool contains(const Value& v) const;
    void add(const Value& v);
    /// set.discard / set.remove: whether `v` was there.
    bool erase(const Value& v);
};
struct SliceObject : Object {
    SliceObject(Value a, Value b, Value c) : Object(Kind::Slice), start(a), stop(b), step(c) {}
    Value start, stop, step;
};
struct EllipsisObject : Object {
    EllipsisObject() : Object(Kind::Ellipsis) {}
};
struct CodeRefObject : Object {
    explicit CodeRefObject(std::shared_ptr<const frontend::CodeObject> c) : Object(Kind::Code), code(std::move(c)) {}
    std::shared_ptr<const frontend::CodeObject> code;
};
struct CellObject : Object {
    CellObject() : Object(Kind::Cell) {}
    std::optional<Value> value;
};

/// What torch.compile was given; the frame hook receives it with each compiled frame.
struct CompileOptions {
    bool fullgraph = false;
    std::optional<bool> dynamic;
    std::string backend = "inductor";
    Value backendCallable;  // backend="<callable>": the user's backend function
    std::string mode = "default";
    Value backendOptions;  // torch.compile's options={...} dict (None when not given), checked and read by the backend
    Value guardFilterFn;   // options["guard_filter_fn"], which Dynamo takes out of the options: which guards to keep
    bool disable = false;
};

struct FunctionObject : Object {
    FunctionObject() : Object(Kind::Function) {}
    std::shared_ptr<const frontend::CodeObject> code;
    std::shared_ptr<Namespace> globals;
    ValueList defaults;
    KwArgs keywordDefaults;
    std::vector<std::shared_ptr<CellObject>> closure;
    Namespace attributes;  // __name__ etc. are computed; this holds what programs set
    /// Set on the wrapper torch.compile returns: entering the function consults the frame hook.
    std::shared_ptr<const CompileOptions> compiled;
};

class Interpreter;
struct CallArgs {
    ValueList positional;
    KwArgs keywords;
    /// The keyword's value, removed from the list; nullopt when absent.
    std::optional<Value> take(const std::string& name);
};
using NativeFn = std::function<Value(Interpreter&, CallArgs&)>;

struct NativeObject : Object {
    NativeObject(std::string n, NativeFn f) : Object(Kind::Native), name(std::move(n)), fn(std::move(f)) {}
    std::string name;
    NativeFn fn;
    /// State for natives that are also objects (compiled wrappers, context managers): their attributes.
    Namespace attributes;
};

struct BoundMethodObject : Object {
    BoundMethodObject(Value s, Value f) : Object(Kind::BoundMethod), self(std::move(s)), function(std::move(f)) {}
    Value self;
    Value function;
};

/// A class (engine/vm/class_model.cpp). Its method resolution order is computed once, when it is made, and is the one
/// order that attribute lookup, super(), isinstance / issubclass and every "is it an nn.Module / an exception" check
/// follow.
struct ClassObject : Object {
    /// A class with one base, or none (`object` itself).
    ClassObject(std::string n, std::shared_ptr<ClassObject> base);
    /// A class with its bases as written (`class C(A, B)`): its MRO is their C3 linearisation, as CPython's; an
    /// inconsistent order, a duplicate base or two bases of incompatible builtin layouts raise CPython's TypeError.
    ClassObject(std::string n, std::vector<std::shared_ptr<ClassObject>> bases);
    std::string name;
    std::string module = "builtins";
    /// type(cls) when it is not `type`: the `metaclass=` of its class statement or of a base (class_builtins.cpp).
    /// Calls, iteration, len, `in`, subscripts and attribute reads the class itself lacks go to its methods.
    std::shared_ptr<ClassObject> metaclass;
    /// The names the class body bound, in order (its dict is unordered): an enum's members in definition order.
    std::vector<std::string> definitionOrder;
    /// __bases__, in the order written (empty for `object`).
    std::vector<std::shared_ptr<ClassObject>> bases;
    /// __mro__ after the class itself (the class is not held here, so that it does not own itself).
    std::vector<std::shared_ptr<ClassObject>> ancestors;
    Namespace dict;
    /// __mro__: the class, then its ancestors.
    std::vector<const ClassObject*> mro() const;
    /// The class attribute `attribute`, searched along the MRO.
    std::optional<Value> lookup(const std::string& attribute) const;
    /// super(start, obj).attribute where this class is type(obj) (or obj itself, a class): searched along this
    /// class's MRO after `start`. nullopt when absent (or when `start` is not in the MRO).
    std::optional<Value> lookupAfter(const ClassObject& start, const std::string& attribute) const;
    bool isSubclassOf(const ClassObject& other) const;
};

struct TracebackEntry {
    std::string filename;
    int line;
    std::string function;
};

struct InstanceObject : Object {
    explicit InstanceObject(std::shared_ptr<ClassObject> c) : Object(Kind::Instance), cls(std::move(c)) {}
    std::shared_ptr<ClassObject> cls;
    Namespace attributes;
    // nn.Module bookkeeping: registration order of parameters and submodules.
    std::vector<std::string> parameterOrder;
    std::vector<std::string> moduleOrder;
    std::vector<std::string> bufferOrder;
    // Exceptions: where they passed, outermost first.
    std::vector<TracebackEntry> traceback;
};

struct ModuleObject : Object {
    explicit ModuleObject(std::string n) : Object(Kind::Module), name(std::move(n)) {}
    std::string name;
    Namespace attributes;
    /// Where unknown attributes fall back to in the op registry ("torch.", "F."); empty for none.
    std::string registryPrefix;
    /// A config module (torch._inductor.config): reading or setting a name it lacks raises PyTorch's
    /// "NAME does not exist".
    bool closedConfig = false;
    /// Fills the attributes on first use and answers whether it could (torch._inductor.config: from the table the
    /// backend registers, which may come after the interpreter was made); kept until it could.
    std::function<bool(ModuleObject&)> fillAttributes;
    void fillOnFirstUse() {
        if (fillAttributes && fillAttributes(*this)) fillAttributes = nullptr;
    }
};

struct IteratorObject : Object {
    explicit IteratorObject(std::function<std::optional<Value>()> n) : Object(Kind::Iterator), next(std::move(n)) {}
    std::function<std::optional<Value>()> next;
};

struct SuperObject : Object {
    SuperObject(std::shared_ptr<ClassObject> c, Value s) : Object(Kind::Super), cls(std::move(c)), self(std::move(s)) {}
    std::shared_ptr<ClassObject> cls;  // lookup continues after it in the MRO of the receiver's type
    Value self;
};

// Constructors of the common values.
Value makeStr(std::string s);
Value makeTensor(tensor::Tensor t);
Value makeList(ValueList items);
Value makeTuple(ValueList items);
Value makeNative(std::string name, NativeFn fn);
Value ellipsisValue();

/// Python's == as containers use it (PyObject_RichCompareBool: the same object first) for dict keys, `in` and list
/// methods: numbers across types, strings, sequences item by item, instances of user classes through their __eq__
/// (InstanceProtocol), everything else by identity. Tensors are compared by identity here (their == is elementwise).
bool valuesEqual(const Value& a, const Value& b);
/// Python's hash(): equal for values valuesEqual calls equal (hash(1) == hash(1.0) == hash(True)); CPython's own
/// numbers for ints, floats, bools and tuples of them; by identity for tensors, functions, classes, modules and
/// instances of classes without __hash__; a user __hash__ through InstanceProtocol. TypeError "unhashable type:
/// 'list'" for lists, dicts, sets and instances whose class sets __hash__ to None (defines __eq__ without __hash__).
int64_t hashValue(const Value& v);
/// The hash of an object that hashes by identity (CPython's _Py_HashPointer).
int64_t identityHash(const Object* object);
/// Whether a stored key matches a looked-up one as Python's dict and set lookups decide: the same object, or equal
/// hashes and ==.
bool keyMatches(const Value& stored, int64_t storedHash, const Value& key, int64_t keyHash);

/// The user-class half of valuesEqual and hashValue, which have no interpreter of their own: the interpreter that
/// runs the program installs one (vm/hashing.cpp: __eq__ with NotImplemented's fallbacks, __hash__), and the capture
/// engine installs its own while it traces (user code must not run unseen by the trace). Without one, instances
/// compare and hash by identity.
class InstanceProtocol {
public:
    virtual ~InstanceProtocol() = default;
    /// `a == b` as a bool, where a or b is an instance and they are not the same object.
    virtual bool instanceEquals(const Value& a, const Value& b) = 0;
    /// hash(instance).
    virtual int64_t instanceHash(const Value& instance) = 0;
};
/// Makes `protocol` the current one until the returned guard is dropped (installations nest; a guard may be
/// dropped out of order).
class InstanceProtocolScope {
public:
    explicit InstanceProtocolScope(InstanceProtocol* protocol);
    ~InstanceProtocolScope();
    InstanceProtocolScope(const InstanceProtocolScope&) = delete;
    InstanceProtocolScope& operator=(const InstanceProtocolScope&) = delete;

private:
    InstanceProtocol* protocol_;
};
/// The innermost installed protocol, or null.
InstanceProtocol* currentInstanceProtocol();

/// Conversions at the tensor runtime's boundary.
tensor::Value toTensorValue(const Value& v);
/// "torch.HalfTensor" for the legacy tensor type class torch.HalfTensor (torch.cuda.* too); nullopt for any other class.
std::optional<std::string> legacyTensorTypeName(const ClassObject& cls);
Value fromTensorValue(const tensor::Value& v);
/// Calls a registry op ("torch.sum", "Tensor.__add__") with VM values.
Value callOp(const std::string& name, const ValueList& args, const KwArgs& kwargs = {});

}  // namespace eng::vm
