// Guard filters (see guard_filter.h): GuardFilterEntry objects as torch/_dynamo/types.py defines them (name,
// has_value, value, guard_type, derived_guard_types, is_global, orig_guard whose source answers
// is_unspecialized_nn_module() / is_unspecialized_builtin_nn_module()), and the filters of torch/compiler.
#include "capture/guard_filter.h"

#include <fmt/core.h>

#include <functional>

#include "capture/source.h"

namespace eng::capture {

namespace {

/// What Dynamo's source chain says about a guard: read through an nn.Module (UnspecializedNNModuleSource), through a
/// built-in one (UnspecializedBuiltinNNModuleSource), or rooted in the frame's globals.
struct SourceFacts {
    bool inModule = false;
    bool inBuiltinModule = false;
    bool global = false;
};

SourceFacts factsOf(vm::Interpreter& vm, const SourceRef& source, const vm::ValueList& locals, const vm::Namespace& globals) {
    SourceFacts facts;
    auto moduleClass = vm.builtinClass("Module");
    for (SourceRef s = source; s; s = s->base) {
        if (!s->base) facts.global = s->kind == Source::Kind::Global;
        std::optional<vm::Value> value = readSource(vm, *s, locals, globals);
        if (!value || !value->is(vm::Kind::Instance) || !vm.isInstance(*value, *moduleClass)) continue;
        facts.inModule = true;
        facts.inBuiltinModule = facts.inBuiltinModule || vm.classOf(*value)->module.starts_with("torch.nn");
    }
    return facts;
}

const char* guardTypeName(GuardKind kind) {
    static const char* kinds[] = {"TENSOR_MATCH", "EQUALS_MATCH",    "TYPE_MATCH",      "ID_MATCH",           "LENGTH_CHECK",   "NONE_MATCH",
                                  "SHAPE_ENV",    "DICT_CONTAINS",   "DUPLICATE_INPUT", "NO_TENSOR_ALIASING", "DICT_KEYS_MATCH"};
    static_assert(std::size(kinds) == static_cast<size_t>(GuardKind::DictKeysMatch) + 1, "a name per GuardKind");
    return kinds[static_cast<int>(kind)];
}

std::shared_ptr<vm::ClassObject> classNamed(vm::Interpreter& vm, const std::string& name, const std::string& module) {
    auto cls = vm.defineClass(name, "object");
    cls->module = module;
    return cls;
}

vm::Value makeEntry(vm::Interpreter& vm, const GuardSpec& guard, const vm::ValueList& locals, const vm::Namespace& globals) {
    static auto entryClass = classNamed(vm, "GuardFilterEntry", "torch._dynamo.types");
    static auto guardClass = classNamed(vm, "Guard", "torch._guards");
    static auto sourceClass = classNamed(vm, "Source", "torch._guards");
    const SourceFacts facts = factsOf(vm, guard.source, locals, globals);
    std::optional<vm::Value> value = readSource(vm, *guard.source, locals, globals);
    auto source = std::make_shared<vm::InstanceObject>(sourceClass);
    source->attributes["name"] = vm::makeStr(guard.source->str());
    source->attributes["is_unspecialized_nn_module"] =
        vm::makeNative("is_unspecialized_nn_module", [facts](vm::Interpreter&, vm::CallArgs&) { return vm::Value(facts.inModule); });
    source->attributes["is_unspecialized_builtin_nn_module"] = vm::makeNative(
        "is_unspecialized_builtin_nn_module", [facts](vm::Interpreter&, vm::CallArgs&) { return vm::Value(facts.inBuiltinModule); });
    auto original = std::make_shared<vm::InstanceObject>(guardClass);
    original->attributes["source"] = vm::Value(source);
    auto entry = std::make_shared<vm::InstanceObject>(entryClass);
    entry->attributes["name"] = vm::makeStr(guard.source->str());
    entry->attributes["has_value"] = vm::Value(value.has_value());
    entry->attributes["value"] = value.value_or(vm::Value());
    entry->attributes["guard_type"] = vm::makeStr(guardTypeName(guard.kind));
    entry->attributes["derived_guard_types"] = vm::makeTuple({});
    entry->attributes["is_global"] = vm::Value(facts.global);
    entry->attributes["orig_guard"] = vm::Value(original);
    return vm::Value(entry);
}

const vm::ValueList& entriesOf(const vm::CallArgs& a, const char* helper) {
    if (a.positional.empty() || !a.positional[0].is(vm::Kind::List))
        vm::typeError(fmt::format("{}() takes a list of GuardFilterEntry", helper));
    return a.positional[0].as<vm::ListObject>().items;
}

/// A helper that keeps entry i when keep(entry) is true.
vm::Value filterHelper(const char* name, std::function<bool(vm::Interpreter&, const vm::Value&)> keep) {
    return vm::makeNative(name, [name, keep](vm::Interpreter& vm, vm::CallArgs& a) {
        vm::ValueList flags;
        for (const vm::Value& entry : entriesOf(a, name)) flags.push_back(vm::Value(keep(vm, entry)));
        return vm::makeList(std::move(flags));
    });
}

bool sourceSays(vm::Interpreter& vm, const vm::Value& entry, const char* question) {
    vm::Value source = vm.getAttr(vm.getAttr(entry, "orig_guard"), "source");
    return vm.truthy(vm.call(vm.getAttr(source, question), {}));
}

}  // namespace

std::vector<GuardSpec> filterGuards(vm::Interpreter& vm, const vm::Value& filter, std::vector<GuardSpec> guards, const vm::ValueList& locals,
                                    const vm::Namespace& globals) {
    vm::ValueList entries;
    for (const GuardSpec& g : guards) entries.push_back(makeEntry(vm, g, locals, globals));
    const vm::Value flags = vm.call(filter, {vm::makeList(entries)});
    if (!flags.is(vm::Kind::List) || flags.as<vm::ListObject>().items.size() != guards.size())
        vm::raise("RuntimeError", fmt::format("guard_filter_fn must return a list of {} bools, one per guard entry", guards.size()));
    std::vector<GuardSpec> kept;
    const vm::ValueList& keep = flags.as<vm::ListObject>().items;
    for (size_t i = 0; i < guards.size(); ++i)
        if (vm.truthy(keep[i])) kept.push_back(std::move(guards[i]));
    return kept;
}

void installGuardFilterHelpers(vm::Interpreter& vm, vm::Namespace& compiler) {
    (void)vm;
    compiler["skip_guard_on_inbuilt_nn_modules_unsafe"] = filterHelper(
        "skip_guard_on_inbuilt_nn_modules_unsafe", [](vm::Interpreter& m, const vm::Value& e) { return !sourceSays(m, e, "is_unspecialized_builtin_nn_module"); });
    compiler["skip_guard_on_all_nn_modules_unsafe"] = filterHelper(
        "skip_guard_on_all_nn_modules_unsafe", [](vm::Interpreter& m, const vm::Value& e) { return !sourceSays(m, e, "is_unspecialized_nn_module"); });
    compiler["skip_guard_on_globals_unsafe"] = filterHelper(
        "skip_guard_on_globals_unsafe", [](vm::Interpreter& m, const vm::Value& e) { return !m.truthy(m.getAttr(e, "is_global")); });
    compiler["keep_tensor_guards_unsafe"] = vm::makeNative("keep_tensor_guards_unsafe", [](vm::Interpreter& m, vm::CallArgs& a) {
        // keep_parameters=False drops the guards on nn.Parameters too, as PyTorch's helper does.
        std::optional<vm::Value> keepParameters = a.positional.size() > 1 ? std::optional(a.positional[1]) : a.take("keep_parameters");
        const bool parameters = keepParameters && m.truthy(*keepParameters);
        vm::ValueList flags;
        for (const vm::Value& entry : entriesOf(a, "keep_tensor_guards_unsafe")) {
            const bool tensorGuard = m.getAttr(entry, "guard_type").str() == "TENSOR_MATCH";
            const vm::Value value = m.getAttr(entry, "value");
            const bool parameter = value.is(vm::Kind::Tensor) && value.as<vm::TensorObject>().parameter;
            flags.push_back(vm::Value(tensorGuard && (!parameter || parameters)));
        }
        return vm::makeList(std::move(flags));
    });
}

}  // namespace eng::capture
