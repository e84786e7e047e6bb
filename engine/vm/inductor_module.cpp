// torch._inductor: the config module (torch._inductor.config.max_autotune = True, nested triton.* and trace.*
// namespaces; unknown names raise as PyTorch's ConfigModule does), list_options() and list_mode_options(mode), all
// from the tables of inductor_config.h. The capture engine merges what a program changed in the config under the
// options={...} of each compile (inductorConfigOverrides), as PyTorch reads its config when it compiles.
#include <fmt/format.h>

#include "vm/inductor_config.h"
#include "vm/interpreter.h"

namespace eng::vm {

const std::vector<InductorConfigEntry>& inductorConfigEntries() {
    static const std::vector<InductorConfigEntry> entries = {
        {"max_autotune", Value(false), true, "times candidate launch shapes of each generated CUDA kernel and keeps the fastest"},
        {"max_autotune_pointwise", Value(false), true, "as max_autotune, for pointwise kernels"},
        {"max_autotune_gemm", Value(false), true, "accepted: matrix products always use cuBLAS/OpenBLAS, which pick their own kernels"},
        {"triton.cudagraphs", Value(false), true, "replays CUDA graphs of the generated kernels (reduce-overhead)"},
        {"epilogue_fusion", Value(true), true, "bias and activations after a matrix product run in one fused kernel"},
        {"fallback_random", Value(false), true, "random ops always run on the eager runtime (their results equal eager)"},
        {"trace.enabled", Value(false), true, "writes the output code and every kernel's source under torch_compile_debug/"},
        {"trace.graph_diagram", Value(false), true, "with trace.enabled, also writes the fusion diagram as Graphviz DOT"},
        {"debug", Value(false), true, "as trace.enabled"},
        {"combo_kernels", Value(false), true, "independent pointwise kernels of different sizes run as one combo kernel (always for optimizer steps)"},
        {"shape_padding", Value(true), false, "matrix operands are never padded: cuBLAS handles unaligned shapes"},
        {"freezing", Value(false), false, "parameters are not folded into the graph as constants"},
        {"cpp_wrapper", Value(false), false, "the wrapper is cwb's own C++ executor already; no generated C++ wrapper"},
        {"coordinate_descent_tuning", Value(false), false, "only max_autotune's launch-shape search exists"},
        {"aggressive_fusion", Value(false), false, "fusion only shares iteration spaces; no fusion across them"},
    };
    return entries;
}

const ModeOptions& compileModeOptions() {
    static const ModeOptions modes = {
        {"default", {}},
        {"reduce-overhead", {{"triton.cudagraphs", true}}},
        {"max-autotune-no-cudagraphs", {{"max_autotune", true}, {"coordinate_descent_tuning", true}}},
        {"max-autotune", {{"max_autotune", true}, {"triton.cudagraphs", true}, {"coordinate_descent_tuning", true}}},
    };
    return modes;
}

namespace {

constexpr const char* kConfigModule = "torch._inductor.config";

/// The module holding a dotted key's leaf ("triton.cudagraphs" -> torch._inductor.config.triton) and the leaf.
std::pair<ModuleObject*, std::string> configSlot(Interpreter& vm, const std::string& name) {
    auto& config = vm.modules().at(kConfigModule).as<ModuleObject>();
    const size_t dot = name.find('.');
    if (dot == std::string::npos) return {&config, name};
    return {&config.attributes.at(name.substr(0, dot)).as<ModuleObject>(), name.substr(dot + 1)};
}

bool sameSetting(const Value& a, const Value& b) {
    if (a.kind() != b.kind()) return false;
    if (a.is(Kind::Str)) return a.str() == b.str();
    if (a.is(Kind::Float)) return a.asFloat() == b.asFloat();
    return a.asInt() == b.asInt();
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
    for (const InductorConfigEntry& entry : inductorConfigEntries()) {
        auto [module, leaf] = configSlot(vm, entry.name);
        auto it = module->attributes.find(leaf);
        if (it != module->attributes.end() && !sameSetting(it->second, entry.torchDefault)) dict->set(makeStr(entry.name), it->second);
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
    for (const InductorConfigEntry& entry : inductorConfigEntries()) {
        const size_t dot = entry.name.find('.');
        if (dot == std::string::npos) {
            config->attributes[entry.name] = entry.torchDefault;
            continue;
        }
        const std::string space = entry.name.substr(0, dot);
        if (!config->attributes.contains(space)) {
            auto nested = std::make_shared<ModuleObject>(std::string(kConfigModule) + "." + space);
            nested->closedConfig = true;
            config->attributes[space] = Value(nested);
        }
        config->attributes.at(space).as<ModuleObject>().attributes[entry.name.substr(dot + 1)] = entry.torchDefault;
    }
    inductor->attributes["list_options"] = makeNative("list_options", [](Interpreter&, CallArgs&) {
        ValueList names;
        for (const InductorConfigEntry& entry : inductorConfigEntries()) names.push_back(makeStr(entry.name));
        return makeList(std::move(names));
    });
    inductor->attributes["list_mode_options"] = makeNative("list_mode_options", [](Interpreter&, CallArgs& a) {
        std::optional<Value> mode = a.positional.empty() ? a.take("mode") : std::optional<Value>(a.positional[0]);
        a.take("dynamic");
        const ModeOptions& modes = compileModeOptions();
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
