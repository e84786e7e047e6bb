// Deleting from nn.Modules, as PyTorch's Python does: Module.__delattr__ (a parameter, buffer or submodule leaves
// the module's registries too, so parameters()/state_dict()/children() stop listing it), ModuleDict's `del md[k]`
// and pop(k), and ModuleList/Sequential's `del ml[i]` (the children after it are renumbered).
#include <fmt/core.h>

#include <algorithm>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

InstanceObject& self(CallArgs& args) { return args.positional.at(0).as<InstanceObject>(); }

bool forget(std::vector<std::string>& order, const std::string& name) {
    auto it = std::find(order.begin(), order.end(), name);
    if (it == order.end()) return false;
    order.erase(it);
    return true;
}

/// Module.__delattr__: out of `_parameters`, `_buffers` or `_modules` when registered there, else object's deletion.
void deleteModuleAttr(Interpreter& vm, const Value& module, const std::string& name) {
    auto& instance = module.as<InstanceObject>();
    const bool registered = forget(instance.parameterOrder, name) || forget(instance.bufferOrder, name) || forget(instance.moduleOrder, name);
    if (registered) {
        instance.attributes.erase(name);
        return;
    }
    vm.deleteInstanceAttr(module, name);
}

std::string keyOf(Interpreter& vm, const Value& key) { return vm.str(key); }

}  // namespace

void installModuleDeletion(Interpreter& vm, ModuleObject& nn) {
    vm.builtinClass("Module")->dict["__delattr__"] = makeNative("__delattr__", [](Interpreter& m, CallArgs& a) {
        if (a.positional.size() != 2 || !a.positional[1].is(Kind::Str)) typeError("__delattr__ expected 1 argument");
        deleteModuleAttr(m, a.positional[0], a.positional[1].str());
        return Value();
    });
    auto moduleDict = nn.attributes.at("ModuleDict").ref<ClassObject>();
    moduleDict->dict["__delitem__"] = makeNative("__delitem__", [](Interpreter& m, CallArgs& a) {
        const std::string key = keyOf(m, a.positional.at(1));
        auto& order = self(a).moduleOrder;
        if (std::find(order.begin(), order.end(), key) == order.end()) m.raiseKeyError(a.positional.at(1));
        deleteModuleAttr(m, a.positional.at(0), key);
        return Value();
    });
    moduleDict->dict["pop"] = makeNative("pop", [](Interpreter& m, CallArgs& a) {
        const std::string key = keyOf(m, a.positional.at(1));
        auto& order = self(a).moduleOrder;
        if (std::find(order.begin(), order.end(), key) == order.end()) m.raiseKeyError(a.positional.at(1));
        Value child = self(a).attributes.at(key);
        deleteModuleAttr(m, a.positional.at(0), key);
        return child;
    });
    for (const char* name : {"ModuleList", "Sequential"}) {
        auto cls = nn.attributes.at(name).ref<ClassObject>();
        cls->dict["__delitem__"] = makeNative("__delitem__", [](Interpreter& m, CallArgs& a) {
            auto& s = self(a);
            ValueList children;
            for (const std::string& n : s.moduleOrder) children.push_back(s.attributes.at(n));
            const size_t count = children.size();
            // Python's own list deletion decides which go (an int or a slice, with its errors), then the rest are
            // registered again under 0..n-1, as PyTorch renumbers them.
            Value kept = makeList(children);
            if (a.positional.at(1).is(Kind::Int) || a.positional.at(1).is(Kind::Bool)) {
                int64_t i = a.positional[1].asInt();
                if (i < 0) i += static_cast<int64_t>(count);
                if (i < 0 || i >= static_cast<int64_t>(count)) raise("IndexError", fmt::format("index {} is out of range", a.positional[1].asInt()));
            }
            m.deleteItem(kept, a.positional.at(1));
            for (size_t i = 0; i < count; ++i) deleteModuleAttr(m, a.positional.at(0), s.moduleOrder.front());
            const ValueList& rest = kept.as<ListObject>().items;
            for (size_t i = 0; i < rest.size(); ++i) m.setAttr(a.positional.at(0), std::to_string(i), rest[i]);
            return Value();
        });
    }
}

}  // namespace eng::vm
