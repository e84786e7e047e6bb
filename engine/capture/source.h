// Where a traced value came from (Dynamo's Source): a frame local, a global, a value on the resumed stack,
// an attribute, a module child or parameter, an item. Guards and graph inputs are read back through it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "vm/interpreter.h"

namespace eng::capture {

struct Source;
using SourceRef = std::shared_ptr<const Source>;

struct Source {
    enum class Kind { Local, Global, Attr, ModuleChild, Parameter, Buffer, Item, DictItem };
    Kind kind = Kind::Local;
    std::string name;   // local/global/attribute name
    int64_t index = 0;  // Local: the fast slot (resume frames count stack entries after the locals); Item: index
    SourceRef base;
    vm::Value key;      // DictItem: the key (a constant, or an object hashed by identity)
    SourceRef keySource;  // DictItem keyed by an object read from another source (optimizer.state[param])

    static SourceRef local(std::string name, int64_t slot);
    static SourceRef global(std::string name);
    /// G['__import_NAME']: the module NAME (dots written `_dot_`), found among the interpreter's modules when the
    /// frame's globals do not hold it.
    static SourceRef importedModule(const std::string& module);
    static SourceRef child(SourceRef base, Kind kind, std::string name);
    static SourceRef item(SourceRef base, int64_t index);
    static SourceRef dictItem(SourceRef base, vm::Value key);
    /// base[the object at keySource]: a dict keyed by tensors or other objects, as Dynamo reads optimizer state.
    static SourceRef dictItemAt(SourceRef base, SourceRef keySource);

    /// Dynamo's source name: L['x'], G['flag'], L['self']._modules['fc1']._parameters['weight'], L['xs'][0],
    /// L['d']['k'].
    std::string str() const;
    /// The same with the local scope stripped, as guard failure reasons print it: x, self._modules['fc1'].
    std::string stripped() const;
    /// The graph input name Dynamo derives from it: L_x_, L_self_modules_fc1_parameters_weight_.
    std::string placeholderName() const;
};

/// One step of a source path: the value at `source` given its base's value and, for a dict item keyed by another
/// source, that key's value (a Local or Global reads the frame, which a step needs nothing else for); nullopt when
/// the path is gone. readSource walks a whole path with it, the guard tree's accessors one step each.
std::optional<vm::Value> readSourceStep(vm::Interpreter& vm, const Source& source, const std::optional<vm::Value>& base,
                                        const std::optional<vm::Value>& keyValue, const vm::ValueList& locals,
                                        const vm::Namespace& globals);

/// The value at `source` in a frame whose fast slots are `locals` (nullopt when the path is gone).
std::optional<vm::Value> readSource(vm::Interpreter& vm, const Source& source, const vm::ValueList& locals,
                                    const vm::Namespace& globals);

/// Replaces every L['name'] in guard text with name (Dynamo's strip_local_scope).
std::string stripLocalScope(const std::string& text);

}  // namespace eng::capture
