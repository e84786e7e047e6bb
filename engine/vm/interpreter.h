// The bytecode interpreter: runs a compiled script as module __main__, calls its functions, and hands every
// frame of a torch.compile'd function to an installed FrameHook (the capture engine's plug-in point).
#pragma once

#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/operators.h"
#include "vm/errors.h"
#include "vm/value.h"

namespace eng::frontend {
class SourceFile;
}

namespace eng::vm {

/// One activation of a code object.
struct Frame {
    std::shared_ptr<const frontend::CodeObject> code;
    std::shared_ptr<Namespace> globals;
    Namespace* locals = nullptr;  // module and class bodies: where LOAD_NAME/STORE_NAME go
    std::vector<std::string>* localsOrder = nullptr;  // a class body: the names it binds, in order
    ValueList fast;               // varNames slots; Null = unbound
    std::vector<std::shared_ptr<CellObject>> cells;  // cellVars, then freeVars
    ValueList stack;
    uint32_t pc = 0;  // the instruction being executed
    /// Instructions left before runFrame hands the frame back (returning Null); -1 runs to the end. The capture
    /// engine runs a graph-break instruction alone this way, then resumes tracing after it.
    int64_t instructionBudget = -1;
    /// Set by YIELD_VALUE: runFrame returned the yielded value and the frame waits at that instruction.
    bool suspended = false;
    /// An exception to raise at the current pc when runFrame resumes the frame (generator.throw/close).
    Value pendingThrow = Value::null();
};

/// A generator: the bound frame of a call of a generator function, run to its next `yield` by next(), send()
/// and throw() (generators.cpp). It is an iterator, so FOR_ITER, list() and friends drive it as any other.
struct GeneratorObject : IteratorObject {
    GeneratorObject() : IteratorObject(nullptr) {}
    /// A generator dropped before its end is closed, as CPython's finalizer closes it: its finally blocks run.
    ~GeneratorObject() override;
    /// Its interpreter while that lives (null once it is being destroyed): who closes it when it is dropped.
    std::shared_ptr<Interpreter*> owner;
    Frame frame;
    bool started = false;   // ran to a first yield: send() may pass a value now
    bool running = false;   // its frame is on the stack: re-entering raises ValueError
    bool finished = false;  // returned or raised: next() raises StopIteration from now on
    Value returnValue;      // what its `return` gave: StopIteration.value
    Value handled;          // the exception its frame was handling when it last yielded (sys.exc_info())
};

/// Plugged in by the capture engine. Called when a function wrapped by torch.compile is entered, with its
/// frame fully bound (arguments in `fast`, cells made). Returning a value replaces the frame's execution;
/// nullopt runs the frame eagerly.
class FrameHook {
public:
    virtual ~FrameHook() = default;
    virtual std::optional<Value> onFrame(Interpreter& interpreter, Frame& frame, const CompileOptions& options) = 0;
};

struct RunResult {
    bool ok = true;
    std::string error;  // the syntax error or the traceback of the uncaught exception
};

class Interpreter {
public:
    explicit Interpreter(std::ostream& out);
    ~Interpreter();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    /// Compiles and runs a script as __main__. Syntax errors and uncaught exceptions come back as text.
    RunResult runScript(const std::string& filename, const std::string& source);
    /// Directories searched for the program's own modules after the script's directory, as PYTHONPATH's entries
    /// follow it on sys.path.
    void setModuleSearchPath(std::vector<std::filesystem::path> directories) { moduleSearchPath_ = std::move(directories); }
    /// A global of the last script run.
    std::optional<Value> global(const std::string& name) const;
    /// Calls any callable; Python exceptions propagate as RaisedException (or VmError from native code).
    Value call(const Value& callable, ValueList args, KwArgs kwargs = {});
    /// `Traceback (most recent call last): ...` for an exception escaping call(); VmError and TensorError too.
    std::string formatUncaught(std::exception_ptr error);

    void setFrameHook(FrameHook* hook) { frameHook_ = hook; }
    FrameHook* frameHook() const { return frameHook_; }
    /// While set, every Python function entered goes to the frame hook with these options, as frames called
    /// from the instruction a compiled frame runs at a graph break are compiled in PyTorch. nullptr: only
    /// torch.compile'd functions.
    void setHookEveryCall(const CompileOptions* options) { hookEveryCall_ = options; }
    const CompileOptions* hookEveryCall() const { return hookEveryCall_; }
    /// Runs a bound frame from its current pc with the eager interpreter (a hook's fallback, or its way to
    /// run what it cannot capture).
    Value evalFrame(Frame& frame) { return runFrame(frame); }
    /// Runs exactly one instruction of a bound frame (exceptions go to its handlers as usual). Returns the
    /// frame's return value when that instruction returned, else Null with the frame at its next pc.
    Value stepFrame(Frame& frame) {
        frame.instructionBudget = 1;
        Value result = runFrame(frame);
        frame.instructionBudget = -1;
        return result;
    }
    /// A generator over a bound frame of a generator function's code (what calling that function returns).
    Value makeGenerator(Frame frame);
    /// Runs a generator to its next yield: that value, or nullopt once it returned (its value in returnValue).
    /// `sent` is the value of the paused yield expression; `thrown` is raised at the yield instead.
    std::optional<Value> resumeGenerator(GeneratorObject& generator, const Value& sent, const std::optional<Value>& thrown);
    /// generator.close(): GeneratorExit raised at the paused yield (RuntimeError when the generator yields again).
    void closeGenerator(GeneratorObject& generator);
    /// StopIteration(value) for a finished generator whose return gave `value` (None: a bare StopIteration).
    [[noreturn]] void raiseStopIteration(const Value& value);
    /// Binds a call's arguments to a function's parameters in `frame.fast` with Python's rules and TypeErrors.
    void bindArguments(const FunctionObject& function, CallArgs& args, Frame& frame);
    /// The stripped text of a line of a script this interpreter ran ("" when unknown).
    std::string sourceLine(const std::string& filename, int line) const;
    std::ostream& out() { return out_; }

    // ---- the object protocol, used by builtins and the torch/nn modules
    Value getAttr(const Value& object, const std::string& name);
    std::optional<Value> findAttr(const Value& object, const std::string& name);
    /// A class attribute read through `object`: functions bind to it; staticmethod/classmethod/property apply.
    Value bindClassAttribute(const Value& object, const std::shared_ptr<ClassObject>& cls, const Value& value);
    void setAttr(const Value& object, const std::string& name, Value value);
    /// `del object.name` / delattr(): the class's __delattr__ when it has one, else the plain deletion.
    void delAttr(const Value& object, const std::string& name);
    /// object.__setattr__ / object.__delattr__ of an instance: a property's setter or deleter, else its own dict
    /// (what a class's __setattr__ / __delattr__ reaches through super()).
    void storeInstanceAttr(const Value& object, const std::string& name, Value value);
    void deleteInstanceAttr(const Value& object, const std::string& name);
    Value callArgs(const Value& callable, CallArgs& args);
    /// type.__call__(cls, *args): a new instance of the class through its __new__ / __init__, past any metaclass.
    Value instantiate(const Value& cls, CallArgs& args);
    /// The method `name` of a class's metaclass bound to the class (`__iter__` of an enum class), if it has one.
    std::optional<Value> metaclassMethod(const Value& cls, const std::string& name);
    Value binaryOp(uint32_t op, const Value& a, const Value& b);
    Value compare(uint32_t op, const Value& a, const Value& b);
    /// Python's `a == b` (`a != b` when negated): a user class's __eq__ (__ne__), the other side's reflected one when
    /// it returns NotImplemented (a subclass's first, as Python orders them), then identity; other values by
    /// valuesEqual (equality.cpp).
    Value equality(const Value& a, const Value& b, bool negated = false);
    /// Python's hash(v): hashValue, with a user class's __hash__ run here.
    int64_t hash(const Value& v);
    /// The NotImplemented singleton a binary dunder returns to hand over to the other operand.
    const Value& notImplemented() const { return notImplemented_; }
    bool contains(const Value& container, const Value& item);
    Value getItem(const Value& container, const Value& key);
    void setItem(const Value& container, const Value& key, Value value);
    void deleteItem(const Value& container, const Value& key);  ///< `del container[key]`
    bool truthy(const Value& v);
    std::string str(const Value& v);
    std::string repr(const Value& v);
    std::string format(const Value& v, const std::string& spec);
    /// "%.3f %s" % (x, y): printf-style formatting of str's % operator.
    std::string percentFormat(const std::string& pattern, const Value& arguments);
    Value iterate(const Value& iterable);  // an IteratorObject
    ValueList toList(const Value& iterable);
    int64_t length(const Value& v);
    std::shared_ptr<ClassObject> classOf(const Value& v);
    std::shared_ptr<ClassObject> builtinClass(const std::string& name) const;
    bool isInstance(const Value& v, const ClassObject& cls);
    /// Creates a class the VM knows by name (int, Tensor, Module, ...); `baseName` empty for object itself.
    std::shared_ptr<ClassObject> defineClass(const std::string& name, const std::string& baseName);
    /// An exception instance of the named builtin class (TypeError, ...) with one message argument.
    Value makeException(const std::string& className, const std::string& message);
    /// KeyError(key): its argument is the key itself, which str() shows as repr(key).
    [[noreturn]] void raiseKeyError(const Value& key);
    /// The exception instance for a C++ exception caught while running (RaisedException, VmError, TensorError).
    Value exceptionFrom(std::exception_ptr error);

    bool gradEnabled() const { return gradEnabled_; }
    void setGradEnabled(bool enabled) { gradEnabled_ = enabled; }
    Frame* currentFrame() { return frames_.empty() ? nullptr : frames_.back(); }
    /// The Python frames running now, outermost first (file, current line, function), as a traceback names them.
    std::vector<TracebackEntry> callStack() const;
    const Namespace& builtins() const { return builtins_; }
    /// Runs `source` (definitions) in a fresh namespace and returns it; null when it does not compile (inspect
    /// parses a builtin's __text_signature__ this way, as CPython's inspect does).
    std::shared_ptr<Namespace> runDefinitions(const std::string& filename, const std::string& source);
    /// Registered by the module files below: import torch, torch.nn, ...
    std::unordered_map<std::string, Value>& modules() { return modules_; }
    /// `import NAME` for the VM's own code: the module itself (a polyfill is loaded on first use).
    Value importModule(const std::string& name) { return importName(name, makeStr("*")); }

private:
    friend struct InterpreterAccess;
    Value runFrame(Frame& frame);
    /// Runs a module's code with `globals` as its namespace.
    void runModuleCode(const std::shared_ptr<const frontend::CodeObject>& code, const std::shared_ptr<Namespace>& globals);
    Value callFunction(const std::shared_ptr<FunctionObject>& function, CallArgs& args, const CompileOptions* compiled);
    Value buildClass(CallArgs& args);
    std::shared_ptr<ClassObject> namedTupleFromClass(const ClassObject& body);
    Value makeFunction(Frame& frame, uint32_t flags);
    Value importName(const std::string& name, const Value& fromList);
    /// Loads the program's own module or package `name` from beside the script or the module search path; false
    /// when there is none.
    bool importFromScriptDirectory(const std::string& name);
    /// Runs a module written in the subset (a polyfill) and registers it under `name`.
    Value loadPythonModule(const std::string& name, const char* source);
    [[noreturn]] void raiseValue(Value exception, const Value& cause, bool withCause);
    std::string formatException(const Value& exception, int depth);

    std::ostream& out_;
    Namespace builtins_;
    std::unordered_map<std::string, Value> modules_;
    std::unordered_map<std::string, std::shared_ptr<ClassObject>> classes_;
    std::unordered_map<std::string, std::shared_ptr<frontend::SourceFile>> sources_;
    std::shared_ptr<Namespace> mainGlobals_;
    std::filesystem::path scriptDirectory_;  // where the program's own modules are imported from
    std::vector<std::filesystem::path> moduleSearchPath_;  // then from these, in order
    /// Each code object's constants as values, converted once.
    std::unordered_map<const frontend::CodeObject*, std::pair<std::shared_ptr<const frontend::CodeObject>, ValueList>>
        constantCache_;
    std::vector<Frame*> frames_;
    Value handledException_;  // sys.exc_info()'s exception: what PUSH_EXC_INFO saves
    FrameHook* frameHook_ = nullptr;
    const CompileOptions* hookEveryCall_ = nullptr;
    bool gradEnabled_ = true;
    Value notImplemented_;
    /// Runs user __eq__/__hash__ for dict keys and set elements (value.h) while this interpreter lives.
    std::unique_ptr<InstanceProtocol> instanceProtocol_;
    std::unique_ptr<InstanceProtocolScope> instanceProtocolScope_;
    std::shared_ptr<Interpreter*> self_ = std::make_shared<Interpreter*>(this);  // generators' owner (cleared when destroyed)
};

// Set-up of the builtin namespace and the modules (one file each).
void installBuiltins(Interpreter& vm, Namespace& builtins);
void installExceptions(Interpreter& vm, Namespace& builtins);
/// hash(), NotImplemented and the interpreter's InstanceProtocol (equality.cpp); returns the protocol to install.
std::unique_ptr<InstanceProtocol> installEquality(Interpreter& vm, Namespace& builtins);
void installTorch(Interpreter& vm);
void installStdlib(Interpreter& vm);
/// The native half of collections (`_collections`) and dict.fromkeys (collections_module.cpp).
void installCollections(Interpreter& vm);
/// `_inspect` (inspect_module.cpp): parameters of callables for the `inspect` polyfill.
void installInspect(Interpreter& vm);
/// `_heapq` (heapq_module.cpp): the native heap functions under the `heapq` polyfill.
void installHeapq(Interpreter& vm);
/// `_autograd_function` (autograd_function.cpp): the node of a torch.autograd.Function call.
void installAutogradFunction(Interpreter& vm);
/// torch.autograd.function's Python half (autograd_function.cpp).
const char* autogradFunctionPolyfillSource();
/// The `heapq` module's Python half (heapq_module.cpp).
const char* heapqPolyfillSource();
/// What updateDict accepts: dict.update's dict, object with keys() or iterable of key/value pairs; DICT_UPDATE's
/// mappings only; DICT_MERGE's mappings whose keys are not in the dict yet (call keywords).
enum class DictSource { Pairs, Mapping, Keywords };
/// dict.update(source), `{**source}` and `f(**source)`, with Python's errors.
void updateDict(Interpreter& vm, DictObject& dict, const Value& source, DictSource how = DictSource::Pairs);
/// `|`, `&`, `-`, `^` of two sets or frozensets: the left operand's type; a set's in-place form updates it.
/// nullopt when an operand is not a set or the operator is none of these.
std::optional<Value> setOperator(ops::BinaryOperator op, bool inplace, const Value& a, const Value& b);
/// type(name, bases, namespace) and super(...) (class_builtins.cpp).
Value makeClassFromNamespace(Interpreter& vm, const Value& name, const Value& bases, const Value& namespaceDict);
Value makeSuper(Interpreter& vm, CallArgs& args);
/// What type.__new__ does once a class exists: __set_name__, __init_subclass__, abc's abstract methods.
void finishClass(Interpreter& vm, const std::shared_ptr<ClassObject>& cls);
/// The class's metaclass (`written`: its `metaclass=`, else its bases'), whose __init__(cls, name, bases, namespace)
/// then runs as type.__call__ runs it after type.__new__; a metaclass __new__ is not in the subset (TypeError).
void applyMetaclass(Interpreter& vm, const std::shared_ptr<ClassObject>& cls, const std::optional<Value>& written);
/// CPython's TypeError for instantiating a class with abstract methods left (abc.ABC); nothing for other classes.
void checkInstantiable(const ClassObject& cls);
/// The `abc` module (class_builtins.cpp): ABC and abstractmethod, without metaclasses.
const char* abcPolyfillSource();
/// A collections.namedtuple class: its instances are tuples that carry it.
Value makeNamedTupleClass(Interpreter& vm, const std::string& name, const std::vector<std::string>& fields,
                          const ValueList& defaultValues, const std::string& moduleName);
/// The source of a standard-library module written in the subset (python_polyfills.cpp), or null.
const char* polyfillSource(const std::string& module);
/// collections, collections.abc, typing and dataclasses (python_polyfills_data.cpp), or null.
const char* dataTypesPolyfillSource(const std::string& module);
/// torch.nn's layers and utilities written in the subset (nn_polyfills.cpp), and the modules holding its layers.
const char* nnPolyfillSource(const std::string& module);
/// torch.distributions written in the subset (distributions_polyfill.cpp).
const char* distributionsPolyfillSource();
const std::vector<std::string>& nnLayerModules();
/// The dataclasses module's source (python_polyfills_dataclasses.cpp).
const char* dataclassesPolyfillSource();
/// The `types` module (python_polyfills_types.cpp).
const char* typesPolyfillSource();
void installNn(Interpreter& vm, ModuleObject& nn);
/// send / throw / close / __next__ of a generator (generators.cpp); nullopt for other names.
std::optional<Value> generatorAttribute(Interpreter& vm, const Value& generator, const std::string& name);
/// Attributes of builtin values (str/list/dict/... methods, tensor methods and properties).
std::optional<Value> builtinAttribute(Interpreter& vm, const Value& object, const std::string& name);

}  // namespace eng::vm
