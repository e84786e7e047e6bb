// torch._inductor: the config module (torch._inductor.config.max_autotune = True, nested triton.* and trace.*
// namespaces; unknown names raise as PyTorch's ConfigModule does), list_options() and list_mode_options(mode), all
// read from the inductor backend's own table through the backend catalog (vm/backend_catalog.h). The capture engine
// merges what a program changed in the config under the options={...} of each compile (inductorConfigOverrides), as
// PyTorch reads its config when it compiles.
#include <fmt/format.h>

#include "vm/backend_catalog.h"
#include "vm/interpreter.h"

namespace eng::vm {

namespace {

constexpr const char* kConfigModule = "torch._inductor.config";
constexpr const char* kBackend = "inductor";

ConfigDefaults configDefaults() {
    const BackendCatalog& catalog = backendCatalog();
    return catalog.configDefaults ? catalog.configDefaults(kBackend) : ConfigDefaults{};
}

ModeOptions modeOptions() {
    const BackendCatalog& catalog = backendCatalog();
    return catalog.modeOptions ? catalog.modeOptions(kBackend) : ModeOptions{};
}

/// Gives the config module torch's defaults of the backend's keys, nested namespaces for dotted ones. Done on the
/// module's first use: the backend registers its table after the interpreter (and its torch module) exists.
bool fillConfig(ModuleObject& config) {
    const ConfigDefaults defaults = configDefaults();
    for (const auto& [name, torchDefault] : defaults) {
        const size_t dot = name.find('.');
        if (dot == std::string::npos) {
            config.attributes[name] = torchDefault;
            continue;
        }
        const std::string space = name.substr(0, dot);
        if (!config.attributes.contains(space)) {
            auto nested = std::make_shared<ModuleObject>(std::string(kConfigModule) + "." + space);
            nested->closedConfig = true;
            config.attributes[space] = Value(nested);
        }
        config.attributes.at(space).as<ModuleObject>().attributes[name.substr(dot + 1)] = torchDefault;
    }
    return !defaults.empty();
}

/// The module holding a dotted key's leaf ("triton.cudagraphs" -> torch._inductor.config.triton) and the leaf.
std::pair<ModuleObject*, std::string> configSlot(Interpreter& vm, const std::string& name) {
    auto& config = vm.modules().at(kConfigModule).as<ModuleObject>();
    config.fillOnFirstUse();
    const size_t dot = name.find('.');
    if (dot == std::string::npos) return {&config, name};
    return {&config.attributes.at(name.substr(0, dot)).as<ModuleObject>(), name.substr(dot + 1)};
}

bool sameSetting(const Value& a, const Value& b) {
    if (a.kind() != b.kind()) return false;
    if (a.is(Kind::Str)) return a.str() == b.str();
    if (a.is(Kind::Float)) return a.asFloat() == b.asFloat();
    if (a.is(Kind::Bool) || a.is(Kind::Int)) return a.asInt() == b.asInt();
    return a.identical(b);  // None, and containers: the default object itself (a program assigning a new one sets it)
}

Value modeDict(const std::vector<std::pair<std::string, bool>>& options) {
    auto dict = std::make_shared<DictObject>();
    for (const auto& [name, value] : options) dict->set(makeStr(name), Value(value));
    return Value(dict);
}

}  // namespace

Value inductorConfigOverrides(Interpreter& vm) {
    auto dict = std::make_shared<DictObject>();
    if (!vm.modules().contains(kConfigModule)) return Value(dict);
    for (const auto& [name, torchDefault] : configDefaults()) {
        auto [module, leaf] = configSlot(vm, name);
        auto it = module->attributes.find(leaf);
        if (it != module->attributes.end() && !sameSetting(it->second, torchDefault)) dict->set(makeStr(name), it->second);
    }
    return Value(dict);
}

void installInductor(Interpreter& vm, ModuleObject& torch) {
    auto inductor = std::make_shared<ModuleObject>("torch._inductor");
    vm.modules()["torch._inductor"] = Value(inductor);
    torch.attributes["_inductor"] = Value(inductor);
    auto config = std::make_shared<ModuleObject>(kConfigModule);
    config->closedConfig = true;
    vm.modules()[kConfigModule] = Value(config);
    inductor->attributes["config"] = Value(config);
    config->fillAttributes = fillConfig;
    inductor->attributes["list_options"] = makeNative("list_options", [](Interpreter&, CallArgs&) {
        ValueList names;
        for (const auto& [name, torchDefault] : configDefaults()) names.push_back(makeStr(name));
        return makeList(std::move(names));
    });
    inductor->attributes["list_mode_options"] = makeNative("list_mode_options", [](Interpreter&, CallArgs& a) {
        std::optional<Value> mode = a.positional.empty() ? a.take("mode") : std::optional<Value>(a.positional[0]);
        a.take("dynamic");
        const ModeOptions modes = modeOptions();
        if (!mode || mode->isNone() || (mode->is(Kind::Str) && mode->str().empty())) {
            auto all = std::make_shared<DictObject>();
            for (const auto& [name, options] : modes) all->set(makeStr(name), modeDict(options));
            return Value(all);
        }
        std::vector<std::string> names;
        for (const auto& [name, options] : modes) {
            if (mode->is(Kind::Str) && name == mode->str()) return modeDict(options);
            names.push_back(name);
        }
        raise("RuntimeError", fmt::format("Unrecognized mode={}, should be one of: {}", mode->is(Kind::Str) ? mode->str() : "?",
                                          fmt::join(names, ", ")));
    });
}

}  // namespace eng::vm
