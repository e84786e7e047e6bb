// The symbolic evaluator (Dynamo's InstructionTranslator): runs a frame's bytecode over tracked values,
// recording tensor work into a Graph, installing guards on every source it reads, inlining user functions
// and nn.Module.forward, and stopping at the first instruction it cannot capture (a graph break).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "capture/guards.h"
#include "capture/source.h"
#include "frontend/code_object.h"
#include "fx/graph_ir.h"
#include "vm/interpreter.h"

namespace eng::capture {

// Capture builds fx graphs: the IR's names read unqualified in the tracer.
using fx::Arg;
using fx::CallKind;
using fx::Graph;
using fx::KwArg;
using fx::Node;
using fx::NodeOp;

struct Variable;
using VarRef = std::shared_ptr<Variable>;
struct TraceFrame;

/// A cell as the trace sees it: its current traced contents. Closures made inside the trace share their
/// parent frame's cells, so `nonlocal` stores and late-bound reads behave as in Python.
struct TracedCell {
    VarRef value;          // null while empty
    bool local = false;    // made inside the trace (a frame's own cell); a real outside cell otherwise
};
using CellRef = std::shared_ptr<TracedCell>;

/// A traced value (Dynamo's VariableTracker).
struct Variable {
    enum class Kind {
        Python,        // a Python object known at trace time (constants, functions, classes, modules, nn.Modules)
        Tensor,        // a tensor: a graph node once used, its example value in `value`
        SymScalar,     // an int/float that varies between calls: a graph input when used by tensor ops
        List, Tuple, Dict,
        Null,          // the CALL convention's empty self slot
        TensorMethod,  // x.sum before the call: receiver in `self`, method in `name`
        BoundMethod,   // a user method of a traced receiver: function in `value`, receiver in `self`
        ContainerMethod,  // out.append / d.update before the call: the container in `self`, the method in `name`
        Cell,          // LOAD_CLOSURE's cell for a closure tuple: the traced cell in `cell`, its deref index in `position`
        Iterator,      // over `items`, next at `position`
        Slice,         // items: start, stop, step
        Object,        // an instance of a user class made in the trace (Dynamo's UserDefinedObjectVariable): the
                       // trace-time instance in `value` (its class, isinstance, repr), its attributes in keys/items
        Super,         // super() in a traced method: the class its lookup starts above in `value`, the receiver in `self`
        Set,           // a set the trace made holding traced values (Dynamo's SetVariable): its distinct `items`, tensors
                       // told apart by identity and constants by value; a set of constants only is a Python constant
    };
    Kind kind = Kind::Python;
    vm::Value value;
    Node* node = nullptr;
    SourceRef source;
    std::vector<VarRef> items;
    std::vector<vm::Value> keys;  // Dict keys
    VarRef self;
    std::string name;
    size_t position = 0;
    bool guarded = false;  // the source's guard is installed
    bool fresh = false;    // made during tracing (mutations need no replay)
    std::vector<std::weak_ptr<Variable>> views;  // Kind::Dict: its keys()/values()/items() views, refilled on every change
    std::string unbacked;  // a captured .item(): its unbacked symbol (zuf0)
    CellRef cell;          // Kind::Cell
    SourceRef classSource;  // Kind::Object: where its class was read (class attributes are guarded through it)
    vm::Value original;     // Kind::Tensor read from a source: the real object (the trace computes on a private copy)
    /// Kind::Iterator of `map`/`filter` (in `name`): lazy, as in Python; the function in `self` is called through the
    /// trace on the next items of these iterators each time an item is asked for (Dynamo's MapVariable/FilterVariable).
    /// `zip`/`enumerate` over a generator are lazy the same way (enumerate's next index in `value`).
    std::vector<VarRef> lazySources;
    /// Kind::Iterator of a generator made in the trace (Dynamo's LocalGeneratorObjectVariable): its paused frame,
    /// run through the trace to its next yield each time an item is asked for (Tracer::nextOf).
    std::shared_ptr<TraceFrame> generator;
    /// The bound __exit__ of a context manager the trace entered (Dynamo's GenericContextWrappingVariable): while
    /// it is on the root frame's stack a graph break has no resume point.
    bool contextExit = false;
};

/// An iterator over a generator made in the trace, directly or through lazy map/filter/zip/enumerate sources.
inline bool holdsGenerator(const Variable& v) {
    if (v.kind != Variable::Kind::Iterator) return false;
    if (v.generator) return true;
    for (const VarRef& source : v.lazySources)
        if (holdsGenerator(*source)) return true;
    return false;
}

/// A keys()/values()/items() view (a Tuple variable over `self`): of a dict the trace made, or of one from outside.
inline bool isDictView(const Variable& v) {
    return (v.kind == Variable::Kind::Tuple || v.kind == Variable::Kind::List) && v.self &&
           (v.self->kind == Variable::Kind::Dict || (v.self->kind == Variable::Kind::Python && v.self->value.is(vm::Kind::Dict)));
}

/// Why tracing stopped before an instruction; `message` in Dynamo's wording.
struct GraphBreakInfo {
    std::string reason;     // the full Graph Break Reason text
    std::string breakType;  // its first line
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
    std::vector<traces::Frame> userStack;
    bool skipFrame = false;  // no resume point: Dynamo fails the frame and runs it eagerly ("Failed to handle graph break gracefully")
    /// Dynamo resumes at no instruction but the calls and jumps it breaks at: one that fails elsewhere (iterating an
    /// enum class) goes back to the last checkpoint, as a break inside a try block does (checkpoint.cpp).
    bool notResumable = false;
    /// The graph ends at the last checkpoint (root pc with an empty stack, outside try blocks, after the first op)
    /// and the rest of the frame runs eagerly: Dynamo's step_graph_break ("cannot resume from"), counted as
    /// unimplemented rather than as a graph break.
    bool atCheckpoint = false;
    std::string skipNote;    // why the frame is skipped when that is a second break (a break in a loop), for the log line
    /// The break whose resume could not be built (a value on the stack that cannot be reconstructed): Dynamo counts
    /// and logs it as a graph break, then fails the frame with this one.
    std::shared_ptr<GraphBreakInfo> unresumedBreak;
};

/// How to rebuild a frame value from the compiled graph's outputs after the graph ran.
struct Rebuild {
    enum class Kind { GraphOutput, Constant, CopyOfConstant, FromSource, TensorSize, List, Tuple, Dict, Null, TensorMethod, Iterator, Cell, Object, Super, DictView, Function, Set };
    Kind kind = Kind::Constant;
    /// Object: a new instance of the class in `constant` with the attributes `keys` = `items` (alias id in `index`);
    /// Super: super(`constant`, items[0]). DictView: items[0].`name`() (keys, values, items). Function: a new function
    /// like the one in `constant` (a closure the trace made) over the frame's cells `items` (alias id in `index`).
    /// Set: a new set of the rebuilt `items` (alias id in `index`).
    /// CopyOfConstant: a shallow copy of `constant` (a set or dict the trace made). GraphOutput: the output; TensorSize: the dimension of the tensor at `source`; Cell: the frame's cell (a closure tuple left on the stack); List/Dict made by the
    /// trace: an alias id (> 0), so that every place holding one container gets the same rebuilt object.
    size_t index = 0;
    vm::Value constant;
    SourceRef source;
    std::string name;
    std::vector<Rebuild> items;
    std::vector<vm::Value> keys;
};

/// One side effect of the traced code on the world outside the frame, replayed after the graph runs (Dynamo's
/// SideEffects): the new value is rebuilt from the graph outputs first, then written to its target.
struct SideEffect {
    enum class Kind {
        ListContents,  // the list at `target` gets the items of `value` (append/extend)
        SetAttr,       // setattr(target, name, value)
        SetGlobal,     // the frame's globals[name] = value
        DictSet,       // target[key] = value
        DictDelete,    // del target[key]
        DelAttr,       // delattr(target, name)
        SetMethod,     // target.<name>(*key): a changing method of a set from outside the frame (add, discard, ...)
    };
    Kind kind = Kind::SetAttr;
    SourceRef target;
    std::string name;
    vm::Value key;
    Rebuild value;
};

/// How the runner obtains a graph input at call time.
struct InputBinding {
    SourceRef source;
    int dimension = -1;  // a symbol: the size of this dimension of the tensor at `source`
};

/// Per source, what earlier compiles of one frame saw: Dynamo's automatic-dynamic frame state.
struct DynamicState {
    std::map<std::string, std::vector<int64_t>> sizes;  // -1: the dimension changed once and is dynamic
    std::map<std::string, std::optional<vm::Value>> scalars;  // nullopt: the value changed once and is dynamic
};

struct TraceOptions {
    bool dynamicAll = false;    // dynamic=True
    bool automaticDynamic = true;  // dynamic=None: dimensions that changed become symbolic
    std::map<uint32_t, GraphBreakInfo> breakBefore;  // restart: stop before these root instructions
    std::string functionName;  // co_name (torch_dynamo_resume_in_f_at_8 for resumes)
    bool captureScalarOutputs = false;  // fullgraph=True: .item() is captured as an unbacked symbol
    bool guardModuleHooks = false;  // torch._dynamo.config.skip_nnmodule_hook_guards is off: hook dicts are guarded
};

/// The result of tracing one frame from its current pc.
struct TraceResult {
    std::unique_ptr<Graph> graph;
    std::vector<InputBinding> inputs;  // one per placeholder, in order
    std::vector<GuardSpec> guards;
    bool returned = false;
    Rebuild returnValue;
    // A graph break: the frame state to rebuild, then the instruction to run in the VM.
    std::optional<GraphBreakInfo> graphBreak;
    uint32_t breakPc = 0;
    std::vector<std::pair<uint32_t, Rebuild>> locals;  // fast slot -> value
    std::vector<Rebuild> stack;
    /// The frame's own cells written by the trace (a closure's variables): set on the real cells at a break or a
    /// return (a closure the trace made may leave the frame holding them).
    std::vector<std::pair<uint32_t, Rebuild>> cells;
    /// What the traced code did to values from outside the frame, in order, replayed after the graph.
    std::vector<SideEffect> sideEffects;
    /// Set when an instruction could not be traced: retrace, stopping before this root instruction
    /// (Dynamo's restart), so that nothing the failed instruction recorded stays in the graph.
    std::optional<uint32_t> restartAt;
};

class Tracer;

/// One frame being traced (the root or an inlined call).
struct TraceFrame {
    std::shared_ptr<const frontend::CodeObject> code;
    std::shared_ptr<vm::Namespace> globals;
    std::vector<VarRef> locals;
    std::vector<std::shared_ptr<vm::CellObject>> cells;  // real cells; traced contents in cellValues
    std::map<size_t, CellRef> cellValues;
    std::vector<VarRef> stack;
    uint32_t pc = 0;
    TraceFrame* parent = nullptr;
    std::optional<VarRef> returned;
    // A generator's frame: YIELD_VALUE leaves the value in `yielded` and the frame paused at that instruction.
    std::optional<VarRef> yielded;
    bool started = false;
};

/// Thrown by a traced `raise`: unwinds the traced frames to the innermost handler of their exception tables.
struct TracedRaise {
    VarRef exception;
    /// Set when the exception came from an operation on trace-time values (a missing dict key, an exhausted
    /// iterator), with the interpreter's error text, for the break when no traced handler takes it.
    bool observed = false;
    std::string errorText{};
};

/// Thrown by instruction handlers when something cannot be captured.
struct Unsupported {
    GraphBreakInfo info;
};

/// A higher-order op's body traced into its own graph (Dynamo's speculate_subgraph).
struct Subgraph {
    std::shared_ptr<Graph> graph;
    VarRef result;               // what the body returned (its values are the subgraph's nodes)
    std::vector<Node*> outputs;  // the subgraph's output nodes, in order
    std::vector<Node*> lifted;   // outer graph values the body read (free tensors): extra inputs after the operands
    std::map<const Node*, Node*> liftedInputs;  // outer value -> its placeholder in the subgraph
};

/// The InstanceProtocol a trace installs: a user __eq__/__hash__ that a dict or set operation on trace-time values
/// would run outside the trace breaks the graph (hashable_keys.cpp).
std::unique_ptr<vm::InstanceProtocol> traceTimeInstanceProtocol(Tracer& tracer);

class Tracer {
public:
    Tracer(vm::Interpreter& vm, TraceOptions options, DynamicState& dynamicState);
    /// Traces `frame` (the real frame, bound, at its pc, with `frame.stack` holding resumed stack values).
    TraceResult trace(const vm::Frame& frame);

    // ---- used by the instruction handlers (symbolic_eval_*.cpp)
    vm::Interpreter& vm() { return vm_; }
    Graph& graph() { return *graph_; }
    void step(TraceFrame& frame);
    /// The traced exception an interpreter error stands for when Dynamo observes it (raise_observed_exception).
    std::optional<TracedRaise> observedException(TraceFrame& frame);
    VarRef constant(vm::Value value);
    VarRef null();
    VarRef wrapSource(const vm::Value& value, SourceRef source);
    VarRef wrapResult(const vm::Value& example, Node* node);
    /// The graph argument for a traced value (creates the placeholder of an input on first use). While a body is
    /// speculated, a tensor from outside it becomes an input of the subgraph (lifted).
    Arg argOf(const VarRef& v);
    /// Traces `body` called on `operands` into a subgraph of its own (symbolic_eval_cond.cpp): each tensor operand
    /// is a placeholder named after its outer node; a tensor the body reads from outside is lifted. Side effects
    /// on values outside the body, and outputs other than tensors, are unsupported (Dynamo's rules).
    Subgraph speculateSubgraph(TraceFrame& frame, const VarRef& body, const std::vector<VarRef>& operands);
    /// A value fit for the eager runtime: the example of tensors, the object of constants.
    vm::Value exampleOf(const VarRef& v);
    bool isConstant(const VarRef& v) const;
    /// A dict made at trace time as a traced dict the trace owns (its class and default factory kept in `value`).
    VarRef dictVariable(const vm::Value& dict);
    bool containsTensor(const VarRef& v) const;
    /// A torch function that may write an argument other than its first (the op registry's marks: F.batch_norm's
    /// running statistics in training) breaks the graph: the write happens inside one node, which the graph cannot
    /// show to functionalisation (nn.BatchNorm writes its buffers with traced in-place ops instead). Returns
    /// whether the call may write its first argument (F.relu(x, inplace=True)).
    bool breakOnArgumentWrites(const std::string& module, const std::string& name, const std::vector<VarRef>& args, const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// A call node of torch.`name` (recorded as `target`); with `out=` a tensor (an op whose schemas name no `out`),
    /// the functional op and then `out.copy_(result)`, returning out: the write is a traced in-place op every
    /// backend sees (symbolic_eval_out.cpp).
    VarRef callTorchFunction(const std::string& module, const std::string& name, const std::string& target, const std::vector<VarRef>& args,
                             const std::vector<std::pair<std::string, VarRef>>& kwargs, const vm::Value& callee);
    /// Guards a Python value read from a source before trace-time code depends on it.
    void guardValue(const VarRef& v);
    /// A namedtuple read from a source: its class pinned (Dynamo's TYPE_MATCH on a NamedTupleVariable), so that what
    /// the trace read from the class (methods, hasattr) holds on later calls.
    void guardTupleClass(const VarRef& v);
    /// A symbolic int becomes this call's value under an equality guard (Dynamo's specialization): an int argument
    /// gets its value guard back, a tensor's symbolic size `L['x'].size()[0] == 4`. Other values are left as they are.
    void specializeScalar(const VarRef& v);
    /// guardValue, and for a dict from outside the frame whose keys the trace folds (iterated, tested with `in`),
    /// Dynamo's DICT_KEYS_MATCH on them (`ordered`: the trace iterated them, so their order counts too).
    void guardDictKeys(const VarRef& v, bool ordered);
    /// Dynamo's DICT_CONTAINS: whether `key` is in the dict from outside the frame is `found` on every call.
    void guardDictContains(const VarRef& dict, const vm::Value& key, bool found);
    /// Whether `a` and `b` are tensors read from the frame through their own sources (parameters aside): the
    /// trace tells such inputs apart under Dynamo's NO_TENSOR_ALIASING guard, which this adds them to.
    bool distinctInputs(const VarRef& a, const VarRef& b);
    Node* recordCall(NodeOp op, const std::string& target, std::vector<Arg> args, std::vector<KwArg> kwargs);
    VarRef callTensorOp(NodeOp op, const std::string& target, const std::vector<VarRef>& args,
                        const std::vector<std::pair<std::string, VarRef>>& kwargs, const vm::Value& callee, CallKind kind);
    VarRef callFunction(TraceFrame& frame, const VarRef& callable, std::vector<VarRef> args,
                        std::vector<std::pair<std::string, VarRef>> kwargs);
    /// list.append / list.extend and dict.update: the traced container changes now; an outside one's change is
    /// replayed on the real container after the graph runs (side_effects.cpp).
    VarRef callContainerMethod(const VarRef& method, std::vector<VarRef> args, std::vector<std::pair<std::string, VarRef>> kwargs);
    VarRef callListMethod(const VarRef& self, const std::string& name, std::vector<VarRef> args,
                          std::vector<std::pair<std::string, VarRef>> kwargs);  // symbolic_eval_lists.cpp
    void storeListSlice(const VarRef& list, const vm::SliceObject& slice, const VarRef& value);  // value null: del
    bool listItemEquals(const VarRef& item, const VarRef& value, const std::string& method);
    /// The key/value pairs of a dict (traced or from outside; an outside one's items keep their sources), or, unless
    /// `mappingOnly`, of an iterable of pairs: what dict(), dict.update and `**` read.
    std::vector<std::pair<VarRef, VarRef>> dictPairs(const VarRef& other, bool mappingOnly);
    // ---- side effects on values from outside the frame (side_effects.cpp)
    void storeAttr(const VarRef& object, const std::string& name, const VarRef& value);
    /// `del object.name` / delattr(): a user `__delattr__` is inlined; otherwise an attribute of an object the trace
    /// made goes at once, and one of an object from outside is a side effect (later reads raise AttributeError).
    /// `throughHook` false is object.__delattr__ (the class's own hook already ran).
    void deleteAttr(TraceFrame& frame, const VarRef& object, const std::string& name, bool throughHook = true);
    void storeGlobal(TraceFrame& frame, const std::string& name, const VarRef& value);
    /// The dict key a traced key stands for: a constant's value, or a tensor read from a source, keyed by the real
    /// object's identity as Python hashes tensors (its source pinned by ID_MATCH); breaks for any other key.
    vm::Value dictKey(const VarRef& key);
    /// An object the trace made used as a dict key or set element: a break with Dynamo's reason when its class has
    /// its own __hash__ (hashable_keys.cpp).
    void checkObjectKey(const VarRef& key);
    /// `item == value` as list.index/count/remove and `in` decide it when either is a user object: its __eq__ traced;
    /// nullopt when neither is one.
    std::optional<bool> userEquals(const VarRef& item, const VarRef& value);
    /// `container[key] = value` (value null: `del container[key]`) on a list or dict.
    void storeItem(const VarRef& container, const VarRef& key, const VarRef& value);
    /// A dict the trace made changed: its views (d.keys(), ...) take its new items, as Python's live views do.
    void refreshViews(const VarRef& dict);
    /// get / pop / setdefault / clear / keys / values / items of a dict the trace made.
    VarRef callFreshDictMethod(const VarRef& method, const std::vector<VarRef>& args, const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// A pending store the trace must read back instead of the real value (nullopt: none; a null VarRef: deleted).
    std::optional<VarRef> pendingAttr(const vm::Value& object, const std::string& name) const;
    std::optional<VarRef> pendingGlobal(const vm::Namespace& globals, const std::string& name) const;
    std::optional<VarRef> pendingItem(const vm::Value& dict, const vm::Value& key) const;
    /// Breaks when a whole-dict read (len, iteration, `in`, methods) would miss the trace's pending stores.
    void requireNoPendingItems(const vm::Value& dict, const std::string& what);
    // ---- exceptions raised in the trace (symbolic_eval_exceptions.cpp)
    /// The exception the traced code is handling (sys.exc_info()'s); null when none.
    const VarRef& handledException() const { return handled_; }
    void setHandledException(VarRef exception) { handled_ = std::move(exception); }
    /// Sends a traced exception raised at frame.pc to the frame's handler: true when one covers the pc.
    bool catchRaise(TraceFrame& frame, const VarRef& exception);
    /// Python's implicit chaining: the exception being handled becomes the new one's __context__.
    void chainContext(const VarRef& exception);
    // ---- instances of user classes (symbolic_eval_objects.cpp)
    /// An object made in the trace, or a plain user-class instance from outside the frame.
    bool isUserInstance(const VarRef& v);
    /// Calling a plain user class: a new Kind::Object with its __init__ inlined; nullopt for any other class.
    std::optional<VarRef> constructObject(TraceFrame& frame, const VarRef& cls, std::vector<VarRef> args,
                                          std::vector<std::pair<std::string, VarRef>> kwargs);
    /// Calling an nn.Module class with a builtin constructor and constant arguments: made at trace time (a module
    /// with parameters or buffers is refused); nullopt for other classes.
    std::optional<VarRef> constructModule(const VarRef& cls, const std::vector<VarRef>& args,
                                          const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// Attribute reads of a Kind::Object (its traced attributes, then the class: methods bind, properties run) or a Kind::Super.
    VarRef objectAttr(TraceFrame& frame, const VarRef& object, const std::string& name);
    void storeObjectAttr(const VarRef& object, const std::string& name, const VarRef& value);
    /// The class's own Python method `name` inlined on a user instance; nullopt when the class does not define it.
    std::optional<VarRef> callDunder(TraceFrame& frame, const VarRef& object, const std::string& name, std::vector<VarRef> args);
    /// OrderedDict(...) / defaultdict(factory, ...) and dict.fromkeys of constants: a traced dict of that class;
    /// nullopt for other callables.
    std::optional<VarRef> constructDictSubclass(const VarRef& callable, std::vector<VarRef>& args,
                                                std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// A changing method (add/discard/remove/update/clear) of a set of plain constants from outside the frame:
    /// Dynamo's SetVariable side effect. It runs on the real set now (every read of the set, through any source,
    /// sees it; trace() puts the contents back when it ends) and is replayed on it after the graph; nullopt where it
    /// does not apply (the caller breaks as before).
    std::optional<VarRef> callOutsideSetMutator(const VarRef& self, const std::string& name, const std::vector<VarRef>& args,
                                                const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// The contents a set from outside the frame had before the trace changed it; nullptr for one it left alone.
    const vm::ValueList* setContentsBeforeTrace(const vm::Value& set) const;
    /// Puts back the contents of every set callOutsideSetMutator changed (the trace is over).
    void restoreChangedSets();
    /// Whether every positional and keyword argument is a trace-time constant.
    bool allConstant(const std::vector<VarRef>& args, const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// `callee` run now on the arguments' example values (a constructor of constants made at trace time).
    vm::Value callOnExamples(const vm::Value& callee, const std::vector<VarRef>& args,
                             const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// Calling a user object: its class's __call__ inlined.
    VarRef callObject(TraceFrame& frame, const VarRef& object, std::vector<VarRef> args, std::vector<std::pair<std::string, VarRef>> kwargs);
    /// collections.deque is Dynamo's DequeVariable: a method it does not model (rotate) breaks the graph at its call.
    void checkDequeMethod(const VarRef& method, const std::vector<VarRef>& args);
    /// super() / super(cls, obj) in a traced method.
    VarRef makeSuper(TraceFrame& frame, const std::vector<VarRef>& args);
    /// The name of the no-op object.__init__ that super().__init__() reaches.
    static constexpr const char* kObjectInit = "object.__init__";
    static constexpr const char* kObjectDelattr = "object.__delattr__";  // super().__delattr__ of a traced instance
    // ---- closures made inside the trace (symbolic_eval_closures.cpp)
    /// Functions made by MAKE_FUNCTION during the trace: their free variables' traced cells.
    std::map<const vm::FunctionObject*, std::vector<CellRef>>& madeClosures() { return madeClosures_; }
    /// The root instruction that made a function during the trace (a restart point when it escapes).
    std::map<const vm::FunctionObject*, uint32_t>& madeAt() { return madeAt_; }
    /// Keeps a function made in the trace alive to its end, so no other one reuses its address in the maps above.
    void keepAlive(vm::Value value) { keptAlive_.push_back(std::move(value)); }
    TraceFrame* rootFrame() const;
    /// True when one of these values holds a function with a closure made in the trace.
    bool madeClosureIn(const std::vector<VarRef>& values) const;
    VarRef inlineFunction(TraceFrame& caller, const vm::Value& function, std::vector<VarRef> args,
                          std::vector<std::pair<std::string, VarRef>> kwargs, const VarRef& self);
    VarRef getAttr(TraceFrame& frame, const VarRef& object, const std::string& name);
    VarRef binaryOp(uint32_t op, const VarRef& a, const VarRef& b);
    /// `+` / `+=` of two lists or two tuples and `*` of one by a constant int, where an operand holds traced
    /// values: the items of the result (a list's `+=` extends it in place); nullopt for other operands.
    std::optional<VarRef> dictMergeOp(uint32_t op, const VarRef& a, const VarRef& b);
    std::optional<VarRef> sequenceOp(uint32_t op, const VarRef& a, const VarRef& b);
    /// List or Tuple for a traced or constant list or tuple; nullopt otherwise.
    std::optional<Variable::Kind> sequenceKind(const VarRef& v) const;
    VarRef compareOp(uint32_t op, const VarRef& a, const VarRef& b);
    /// compareOp where an operand is a user object: its comparison methods inlined.
    VarRef compareObjects(uint32_t op, const VarRef& a, const VarRef& b);
    /// Breaks when `a is b` cannot be decided for every call these guards admit.
    void requireKnownIdentity(const VarRef& a, const VarRef& b);
    /// `a is b` for two traced values, decided at trace time (under guards); breaks when the trace cannot tell.
    bool sameObject(const VarRef& a, const VarRef& b);
    /// A set the trace owns holding these values (duplicates dropped as Python's set drops them).
    VarRef setOf(const std::vector<VarRef>& items);
    /// set.add on a set the trace made; `in` on one.
    void addToSet(const VarRef& set, const VarRef& item);
    bool setContains(const VarRef& set, const VarRef& item);
    VarRef getItem(const VarRef& container, const VarRef& key);
    /// A 0-d integer tensor made by torch.tensor / torch.as_tensor of constants alone: the same value on every call.
    bool tensorOfConstants(const VarRef& v) const;
    bool truthOf(TraceFrame& frame, const VarRef& v);
    /// Symbolic ints (symbolic_eval_symints.cpp): the integer expression of a value (its symbol, what the trace
    /// computed from symbols, or a constant int; nullptr for anything else), kept for a graph value the trace made.
    SymExprRef symExprOf(const VarRef& v) const;
    VarRef noteSymExpr(const VarRef& result, SymExprRef expr);
    /// -v, +v, ~v: a node for a tensor or symbolic scalar (-s keeps its expression), folded for constants.
    VarRef unaryOp(ops::UnaryOperator op, const VarRef& v);
    /// The expression `a op b` (a BINARY_OP operand) would have; nullptr when either side has none.
    SymExprRef symExprOfBinary(uint32_t op, const VarRef& a, const VarRef& b) const;
    /// numel() of a tensor whose dimensions are all exact: the product of their expressions.
    SymExprRef numelExpr(const VarRef& tensor);
    /// A comparison of symbolic ints with expressions: this call's outcome, guarded as Dynamo's ShapeEnv guards it
    /// (`L['depth'] - 1 != 0` on the one symbol it reads; each symbol's value when it reads several); nullopt when
    /// a side has no expression or neither side is symbolic.
    std::optional<VarRef> compareSymbolic(uint32_t op, const VarRef& a, const VarRef& b);
    std::vector<VarRef> unpack(const VarRef& v);
    /// The next item of a traced iterator (a lazy map/filter calls its function now, a generator runs to its next
    /// yield); nullopt when exhausted.
    std::optional<VarRef> nextOf(const VarRef& iterator);
    /// send() / throw() / close() / __next__ of a generator made in the trace (a ContainerMethod over it), run through
    /// the trace as Dynamo's LocalGeneratorObjectVariable.call_method runs them.
    VarRef callGeneratorMethod(const VarRef& method, const std::vector<VarRef>& args, const std::vector<std::pair<std::string, VarRef>>& kwargs);
    /// keys()/values()/items() of a dict from outside the frame: a view over its guarded keys and sourced values.
    VarRef outsideDictView(const VarRef& dict, const std::string& name);
    /// `key in d` for a dict from outside the frame: a key the trace stored or deleted answers from the trace,
    /// any other from the real dict, guarded by DICT_CONTAINS (Dynamo's ConstDictVariable over its source).
    bool outsideDictContains(const VarRef& dict, const vm::Value& key);
    /// An iterator over a traced iterable: an iterator is its own iterator.
    VarRef iteratorOf(const VarRef& iterable);
    [[noreturn]] void unsupported(const std::string& breakType, const std::string& explanation,
                                  const std::vector<std::string>& hints, const std::string& context, int gbNumber = 0);
    /// Dynamo's break for a builtin (or an operator's builtin) it has no rule for: "Failed to trace builtin operator"
    /// with the arguments' Python types and variable classes (gb0059).
    [[noreturn]] void unsupportedBuiltin(const std::string& name, const std::vector<VarRef>& args, bool hasKwargs);
    GuardOrigin originHere() const;
    std::string sourceLineOf(const TraceFrame& frame) const;
    TraceFrame* currentFrame() { return current_; }
    const TraceOptions& options() const { return options_; }
    /// A fresh unbacked symbol name (zuf0 for floats, u0 for ints), as the ShapeEnv names them.
    std::string unbackedSymbol(bool isFloat) { return (isFloat ? "zuf" : "u") + std::to_string(unbackedCount_++); }

private:
    void runRoot(TraceFrame& root, TraceResult& result);
    /// Runs a generator's frame to its next yield, with `sent` as the paused yield's value, or with `thrown` raised
    /// at it (non-null); nullopt when the generator returns.
    std::optional<VarRef> resumeGenerator(Variable& iterator, const VarRef& sent, const VarRef& thrown);
    /// Anything else the evaluator cannot model (a Python error of the user's code included) breaks the graph
    /// before the instruction: the VM runs it and raises the error with the user's traceback.
    void breakOnError(TraceFrame& root, TraceResult& result, const std::string& what);
    /// A generator made in the trace reached the frame state or the return value: fail the frame instead.
    void failOnEscapedGenerator(TraceFrame& root, TraceResult& result, const GraphBreakInfo* atBreak);
    /// The frame state at a break holds a value Dynamo cannot reconstruct: fail the frame ("Reconstruction failure").
    void failOnUnreconstructable(TraceFrame& root, TraceResult& result, const GraphBreakInfo& atBreak);
    void skipForLoop(const TraceFrame& root, GraphBreakInfo& info);
    /// Dynamo's speculate() at every root instruction: with an empty stack, outside try blocks and once the graph
    /// has an op, the instruction is the checkpoint a later break without a resume point goes back to.
    void noteCheckpoint(const TraceFrame& root);
    /// Where a break caught at root.pc resumes: there, at the last checkpoint, or nowhere (the frame is skipped).
    void placeBreak(const TraceFrame& root, GraphBreakInfo& info, TraceResult& result);
    std::optional<uint32_t> checkpointPc_;
    void finishWithReturn(TraceResult& result, const VarRef& value);
    void finishWithBreak(TraceResult& result, TraceFrame& root, const GraphBreakInfo& info);
    Rebuild rebuildOf(const VarRef& v, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex);
    /// The side effects to replay, their values rebuilt from the graph outputs, into result.sideEffects.
    void recordSideEffects(TraceResult& result, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex);
    /// A function made inside the trace that would leave it (returned, kept across a break, stored outside):
    /// the root pc that made it, where the trace must break instead.
    std::optional<uint32_t> escapingClosure(const TraceFrame& root, const TraceResult* breakState, const VarRef* returned);
    /// Restart before the root instruction that made an escaping closure.
    void breakAtClosure(TraceResult& result, TraceFrame& root, uint32_t pc);
    /// Where each cell of a function's closure sits among the compiled frame's own cells; nullopt when one is not
    /// the frame's (a cell of an inlined call lives only in the trace).
    std::optional<std::vector<size_t>> rootCellsOf(const vm::FunctionObject& function) const;
    /// The frame's own cells as the trace left them, to be written to the real cells.
    void recordCells(TraceResult& result, TraceFrame& root, std::vector<Arg>& outputs, std::map<const Node*, size_t>& outputIndex);
    VarRef wrapTensorInput(const vm::Value& value, SourceRef source);
    /// The NO_TENSOR_ALIASING guard over the tensor inputs the trace told apart (none for fewer than two).
    void guardNoTensorAliasing();
    /// Adds v to the inputs that guard covers, once.
    void markDistinct(const VarRef& v);

    /// The subgraph being speculated: the graph it interrupted (graph_ is the subgraph meanwhile) and its lifts;
    /// `enclosing` is the speculation the interrupted graph belongs to (a cond inside a branch).
    struct Speculation {
        std::unique_ptr<Graph> outer;
        Subgraph* subgraph = nullptr;
        Speculation* enclosing = nullptr;
    };
    Arg liftIntoSubgraph(const VarRef& v);
    Speculation* speculation_ = nullptr;

    vm::Interpreter& vm_;
    TraceOptions options_;
    DynamicState& dynamic_;
    std::unique_ptr<Graph> graph_;
    std::vector<InputBinding> inputs_;
    std::vector<GuardSpec> guards_;
    std::map<std::string, VarRef> sourceCache_;
    std::vector<std::pair<vm::Value, vm::ValueList>> mutatedSets_;  // outside sets the trace changed, and their contents before
    std::vector<VarRef> tensorInputs_;    // tensors read from sources, one variable per object (Dynamo's DUPLICATE_INPUT)
    std::vector<VarRef> distinctInputs_;  // those the trace relies on being distinct objects
    std::map<std::string, VarRef> symbolVars_;  // a symbol's variable (s0: an input's size or an int argument)
    std::map<const Node*, SymExprRef> symExprs_;  // int graph values computed from symbols: their expressions
    std::map<const Node*, InputBinding> symbolSizes_;  // a size symbol's placeholder: the tensor dimension it reads  // one variable per source, so guards and placeholders are shared
    /// A pending side effect; `identity` is the object it changes (list variable, instance, dict, globals).
    struct PendingEffect {
        SideEffect::Kind kind;
        const void* identity;
        SourceRef target;
        std::string name;
        vm::Value key;
        VarRef value;
    };
    PendingEffect* findEffect(SideEffect::Kind kind, const void* identity, const std::string& name, const vm::Value* key);
    const PendingEffect* findEffect(SideEffect::Kind kind, const void* identity, const std::string& name, const vm::Value* key) const;
    void addEffect(PendingEffect effect);
    std::vector<PendingEffect> effects_;  // in the order the trace made them; one per target
    size_t effectWrites_ = 0;             // stores into effects_ so far (a speculated body must make none)
    std::vector<std::weak_ptr<Variable>> outsideViews_;  // views of dicts from outside the frame (outsideDictView)
    std::map<const Variable*, size_t> aliasIds_;  // containers made by the trace, numbered for one rebuilt object each
    std::map<const vm::FunctionObject*, std::vector<CellRef>> madeClosures_;
    std::map<const vm::FunctionObject*, uint32_t> madeAt_;
    std::map<const vm::Object*, uint32_t> madeModules_;  // nn.Modules constructed by the trace: the root pc that made them
    bool escapedModule_ = false;                          // what escapingClosure found: a module, else a closure
    VarRef handled_;  // the traced exception being handled (PUSH_EXC_INFO / POP_EXCEPT)
    bool generatorEscaped_ = false;  // rebuildOf met a generator made in the trace: it cannot leave the frame
    std::string unreconstructable_;  // rebuildOf met a value Dynamo cannot rebuild (a method of an object made in the trace)
    std::vector<vm::Value> keptAlive_;
    TraceFrame* root_ = nullptr;
    TraceFrame* current_ = nullptr;
    int symbolCount_ = 0;
    int inlineDepth_ = 0;
    int unbackedCount_ = 0;
};

/// A graph break at root.pc has no resume point (Dynamo fails the frame and runs it eagerly): a context manager the
/// trace entered is active, or the instruction is inside a try block.
bool noResumePoint(const TraceFrame& root);
/// A break at an instruction Dynamo has no graph-break path for (BINARY_OP, FORMAT_VALUE, ...) while the graph has
/// no op yet: no checkpoint to compile up to, so the frame runs eagerly.
bool noCheckpoint(const TraceFrame& root, const fx::Graph& graph);
/// A class whose metaclass is (derived from) enum.EnumType, and an instance of one (a member): Dynamo's EnumVariable.
bool isEnumClass(const vm::Value& v);
bool isEnumMember(const vm::Value& v);
/// root.pc is inside a try block (the innermost handler covering it is not a with-statement's).
bool insideTryBlock(const TraceFrame& root);
/// pop, insert, remove, index, count, reverse, sort, copy: traced by Tracer::callListMethod.
bool isTracedListMethod(const std::string& name);
/// Dynamo's has_backedge(): a jump at or after the root frame's pc goes back before it (the break is inside a loop).
bool insideLoop(const TraceFrame& root);

/// Locals read (before written) on some path from `pc`: what a resume point needs.
std::vector<bool> liveLocalsAt(const frontend::CodeObject& code, uint32_t pc);

}  // namespace eng::capture
