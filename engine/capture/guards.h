// Guards on the sources a compiled entry read (Dynamo's TENSOR_MATCH, EQUALS_MATCH, TYPE_MATCH, ID_MATCH,
// LENGTH_CHECK), evaluated in C++ as a tree: each source path is read once and every check under it runs on
// that value; then the guards relating several sources (DUPLICATE_INPUT, NO_TENSOR_ALIASING). Failure reasons use Dynamo's wording ("tensor 'x' size mismatch at index 0. expected 4, actual 8").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "capture/source.h"
#include "capture/sym_expr.h"
#include "model/trace_model.h"

namespace eng::capture {

enum class GuardKind {
    TensorMatch, EqualsMatch, TypeMatch, IdMatch, LengthCheck, NoneMatch, ScalarCompare, DictContains,
    DuplicateInput,    // `source is related[0]`: one tensor read through two sources is one graph input
    NoTensorAliasing,  // the tensors at `related` are distinct objects (the trace told them apart)
    DictKeysMatch,     // the dict's keys are `expected` (a list; in that order when `ordered`)
};

/// Where in the user's code a guard was installed (printed after the guard as `# code  # file:line in fn`).
struct GuardOrigin {
    std::string code;
    std::string file;
    int line = 0;
    std::string function;
};

struct GuardSpec {
    GuardKind kind = GuardKind::TypeMatch;
    SourceRef source;
    GuardOrigin origin;
    vm::Value expected;                 // EqualsMatch: the constant; IdMatch: the object; DictKeysMatch: the keys
    std::string typeName;               // TypeMatch: the class name (int, float, bool, str, ...)
    vm::Kind valueKind = vm::Kind::None;  // TypeMatch, LengthCheck: the VM kind it must have
    int64_t length = 0;                 // LengthCheck
    uint32_t compareOp = 0;             // ScalarCompare: `source <op> expected` must be `outcome`
    int dimension = -1;                 // ScalarCompare on a dynamic size: `source.size()[dimension] <op> expected`
    SymExprRef lhs, rhs;                // ScalarCompare of expressions over that one symbol: `lhs <op> rhs` instead
    bool outcome = true;                // ScalarCompare; DictContains: whether the key `expected` is in the dict
    bool codeOnly = false;              // IdMatch of a function whose cells are the frame's own: its code, not its identity
    bool ordered = false;               // DictKeysMatch: the trace iterated the keys, so their order counts too
    std::vector<SourceRef> related;     // DuplicateInput: the source it must be; NoTensorAliasing: every source checked
    // TensorMatch
    tensor::DType dtype = tensor::DType::Float32;
    tensor::Device device;
    std::vector<int64_t> sizes, strides;
    std::vector<bool> dynamicDims;  // dimensions left symbolic: size and stride not checked (size must be >= 2)
    bool requiresGrad = false;

    /// The guard's code as Dynamo prints it: L['flag'] == True, check_tensor(L['x'], ...), len(L['xs']) == 2.
    std::string code() const;
    /// "code   # user code  # file:line in fn", the verbose form of recompile reasons.
    std::string verboseCode() const;
};

/// The failure of one cache entry's guards on a call.
struct GuardFailureReason {
    std::string reason;       // "tensor 'x' size mismatch at index 1. expected 16, actual 32"
    GuardOrigin origin;       // where the failing guard came from (for the User stack trace lines)
    bool hasUserStack = false;
};

class SourceValues;

/// The guards of one cache entry, as a tree of source accessors.
class GuardTree {
public:
    explicit GuardTree(std::vector<GuardSpec> guards);
    ~GuardTree();
    GuardTree(GuardTree&&) noexcept;
    GuardTree& operator=(GuardTree&&) noexcept;

    /// True when every guard holds for a frame with these fast locals (stack entries after them) and globals.
    bool check(vm::Interpreter& vm, const vm::ValueList& locals, const vm::Namespace& globals) const;
    /// The same, reading the frame through `values` (made for this tree), which keeps what it read for the caller.
    bool check(SourceValues& values) const;
    /// The first failing guard in tree order, in Dynamo's wording; nullopt when all hold.
    std::optional<GuardFailureReason> explainFailure(vm::Interpreter& vm, const vm::ValueList& locals,
                                                     const vm::Namespace& globals) const;
    const std::vector<GuardSpec>& guards() const { return guards_; }
    /// Rows for the trace: the tree as Dynamo prints it (GuardManager per source, checks below).
    std::vector<traces::Guard> rows() const;
    /// The accessor reading `source` (one per source name, with one per prefix of its path), added if the guards
    /// have none: the graph's inputs are read through the accessors the guards read them with.
    int accessor(const SourceRef& source);

private:
    friend class SourceValues;
    struct Node;
    /// One step of a source path: `base` and `key` (a dict item keyed by another source) are accessors too.
    struct Accessor {
        SourceRef source;
        int base = -1;
        int key = -1;
    };
    std::vector<GuardSpec> guards_;
    std::unique_ptr<Node> root_;
    std::vector<const GuardSpec*> relational_;        // guards over several sources, checked after the tree
    std::vector<std::vector<int>> relationalSources_;  // per relational guard: the accessors of the sources it relates
    std::vector<Accessor> accessors_;
    std::unordered_map<std::string, int> accessorByName_;
};

/// One call's values at a guard tree's sources, as Dynamo's guard manager caches its accessors' results: each
/// accessor reads its step once, from its base's value, so `self.state[p]['exp_avg']` walks no path twice, and the
/// tree's checks, its relational guards and the graph's input bindings all take their values from here.
class SourceValues {
public:
    SourceValues(const GuardTree& tree, vm::Interpreter& vm, const vm::ValueList& locals, const vm::Namespace& globals);
    /// The value at accessor `index` of the tree (nullopt when the path is gone), read on first use.
    const std::optional<vm::Value>& at(int index);
    /// The source accessor `index` reads.
    const Source& source(int index) const;
    /// How many accessors have been read (each at most once).
    int64_t reads() const { return reads_; }

private:
    const GuardTree& tree_;
    vm::Interpreter& vm_;
    const vm::ValueList& locals_;
    const vm::Namespace& globals_;
    std::vector<std::optional<vm::Value>> values_;
    std::vector<bool> read_;
    int64_t reads_ = 0;
};

}  // namespace eng::capture
