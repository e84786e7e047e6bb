// The FX graph cache (see fx_graph_cache.h): the key's components as PyTorch's FxGraphHashDetails prints them
// ("[hash] name: value"), entries stored through the kernel cache's files, checked against the lowered graph on load.
#include "inductor/fx_graph_cache.h"

#include <chrono>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pwd.h>
#include <unistd.h>

#include "fx/cache_events.h"
#include "fx/fx_printer.h"
#include "inductor/inductor_options.h"
#include "inductor/schedule_codec.h"
#include "kernel_cache/disk_cache.h"
#include "tensor/autograd/grad_mode.h"

namespace eng::inductor {

namespace {

constexpr std::string_view kKeyFormat = "cwb-fx-graph-cache 1";

/// A cache key, or why the graph cannot have one (PyTorch's BypassFxGraphCache reason).
struct CacheKey {
    std::vector<std::string> components;
    std::string bypassReason;
    std::string text() const {
        std::string all;
        for (const std::string& c : components) all += c + "\n";
        return all;
    }
    std::string hash() const { return "f" + kernel_cache::hashHex(text()); }
};

std::string component(const std::string& name, const std::string& value) {
    return fmt::format("[{}] {}: {}", kernel_cache::hashHex(value), name, value);
}

/// Constants whose text is their whole value; anything else (an object, a tensor) cannot be keyed by its text.
bool hashableConstant(const vm::Value& value) {
    switch (value.kind()) {
        case vm::Kind::None:
        case vm::Kind::Bool:
        case vm::Kind::Int:
        case vm::Kind::Float:
        case vm::Kind::Str:
        case vm::Kind::DType:
        case vm::Kind::Device:
        case vm::Kind::Ellipsis: return true;
        case vm::Kind::Tuple:
        case vm::Kind::List: {
            const auto& items = value.is(vm::Kind::List) ? value.as<vm::ListObject>().items : value.as<vm::TupleObject>().items;
            for (const vm::Value& item : items)
                if (!hashableConstant(item)) return false;
            return true;
        }
        case vm::Kind::Slice: {
            const auto& s = value.as<vm::SliceObject>();
            return hashableConstant(s.start) && hashableConstant(s.stop) && hashableConstant(s.step);
        }
        default: return false;
    }
}

bool hashableArg(const fx::Arg& arg) {
    if (arg.kind == fx::Arg::Kind::Constant) return hashableConstant(arg.constant);
    for (const fx::Arg& item : arg.items)
        if (!hashableArg(item)) return false;
    return true;
}

std::string tensorMetadata(const tensor::Tensor& t) {
    return fmt::format("TensorMetadata(dtype=torch.{}, shape=[{}], stride=[{}], storage_offset={}, device={}, requires_grad={})",
                       tensor::dtypeName(t.dtype()), fmt::join(t.sizes(), ", "), fmt::join(t.strides(), ", "), t.storageOffset(),
                       t.device().str(), t.requiresGrad() ? "True" : "False");
}

std::string indicesText(const std::vector<Index>& list) {
    std::string text;
    for (const Index& i : list) text += (text.empty() ? "" : ", ") + toString(i);
    return "[" + text + "]";
}

/// What lowering made of the graph, buffer by buffer: an entry is used only for the same lowered graph.
std::string loweredFingerprint(const LoweredGraph& lowered) {
    std::string text = fmt::format("device={} inputs={} outputs={}", lowered.device.str(), lowered.inputCount, lowered.outputs.size());
    for (const SymbolSource& s : lowered.symbols) text += fmt::format(" {}=input{}.dim{}", s.name, s.input, s.dim);
    for (const GraphBuffer& b : lowered.buffers)
        text += fmt::format("\n{} kind={} dtype={} sizes={} strides={} input={} parameter={} mutates={} extern={}({}) origins={}", b.name,
                            static_cast<int>(b.kind), tensor::dtypeName(b.dtype), indicesText(b.sizes), indicesText(b.strides), b.inputIndex,
                            b.isParameter, b.mutatesInput, b.extern_.op, fmt::join(b.extern_.inputBuffers, ","), fmt::join(b.originNodes, ","));
    return text;
}

CacheKey cacheKey(const fx::Graph& graph, const vm::ValueList& examples, const InductorConfig& config, const LoweredGraph& lowered) {
    CacheKey key;
    key.components.push_back(component("cwb", std::string(kKeyFormat) + " " + kernel_cache::executableIdentity()));
    key.components.push_back(component("gm", fx::graphCode(graph)));
    for (const auto& node : graph.nodes())  // a torch.cond's branches are submodules of the graph module
        if (node->subgraph) key.components.push_back(component("gm." + node->target, fx::graphCode(*node->subgraph)));
    std::string meta;
    for (const auto& node : graph.nodes()) {
        for (const fx::Arg& arg : node->args)
            if (!hashableArg(arg)) key.bypassReason = fmt::format("Can't cache a graph with a constant argument of node {} that has no value text", node->name);
        for (const auto& [name, arg] : node->kwargs)
            if (!hashableArg(arg)) key.bypassReason = fmt::format("Can't cache a graph with a constant argument of node {} that has no value text", node->name);
        std::string exact;
        for (bool e : node->dimsExact) exact += e ? '1' : '0';
        meta += fmt::format("{} {} {} call={} type={} meta={} dims=[{}] exact={}\n", node->name, fx::toString(node->op), node->target,
                            static_cast<int>(node->callKind), node->typeName, fx::metaText(graph, *node), fmt::join(node->dimSymbols, ","), exact);
    }
    key.components.push_back(component("node_meta", meta));
    for (size_t i = 0; i < examples.size(); ++i) {
        const vm::Value& v = examples[i];
        std::string text;
        if (v.is(vm::Kind::Tensor)) text = tensorMetadata(v.as<vm::TensorObject>().value);
        else if (hashableConstant(v)) text = fx::constantText(v);
        else key.bypassReason = fmt::format("Can't cache a graph whose example input {} is neither a tensor nor a number", i);
        key.components.push_back(component(fmt::format("example_inputs[{}]", i), text));
    }
    key.components.push_back(component("grad_enabled", tensor::autograd::isGradEnabled() ? "True" : "False"));
    key.components.push_back(component(
        "inductor_config", fmt::format("mode={} codegen={} max_autotune={} cudagraphs={} trace={} graph_diagram={} combo_kernels={} "
                                       "coordinate_descent_tuning={} aggressive_fusion={} cpp_wrapper={} shape_padding={} "
                                       "force_shape_pad={} freezing={} max_fusion_size={} ops_in_kernel_names={}",
                                       config.mode, config.codegen == CodegenChoice::Native ? "native" : "interpreter", config.autotune,
                                       config.cudaGraphs, config.debugTrace, config.graphDiagram, config.comboKernels,
                                       config.coordinateDescent, config.aggressiveFusion, config.cppWrapper, config.shapePadding,
                                       config.forceShapePad, config.freezing, config.maxFusionSize, config.opsInKernelNames)));
    key.components.push_back(component("lowered_graph", loweredFingerprint(lowered)));
    return key;
}

/// A decoded schedule fits the lowered graph: every buffer, kernel and step it names exists, and each kernel is
/// well-formed; otherwise the entry is not used.
bool fits(const Schedule& schedule, const LoweredGraph& lowered) {
    const auto bufferCount = static_cast<int>(lowered.buffers.size());
    if (schedule.stored.size() != lowered.buffers.size()) return false;
    for (const ScheduledKernel& k : schedule.kernels) {
        if (k.bufferIds.size() != k.kernel.buffers.size()) return false;
        for (int id : k.bufferIds)
            if (id < 0 || id >= bufferCount) return false;
        for (int id : k.members)
            if (id < 0 || id >= bufferCount) return false;
        try {
            verifyKernel(k.kernel);
        } catch (const std::logic_error&) {
            return false;
        }
    }
    for (const ScheduleStep& step : schedule.steps) {
        if (step.kind == ScheduleStep::Kind::Kernel && (step.index < 0 || step.index >= static_cast<int>(schedule.kernels.size()))) return false;
        if (step.kind == ScheduleStep::Kind::Extern &&
            (step.index < 0 || step.index >= bufferCount || lowered.buffers[static_cast<size_t>(step.index)].kind != BufferKind::Extern))
            return false;
    }
    return true;
}

int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::filesystem::path inductorCacheDir() {
    if (const char* dir = std::getenv("TORCHINDUCTOR_CACHE_DIR"); dir && *dir) return dir;
    // getpass.getuser(): the first of LOGNAME, USER, LNAME, USERNAME that is set, else the password database's name.
    std::string user;
    for (const char* name : {"LOGNAME", "USER", "LNAME", "USERNAME"})
        if (const char* value = std::getenv(name); value && *value && user.empty()) user = value;
    if (user.empty())
        if (const passwd* entry = getpwuid(geteuid())) user = entry->pw_name;
    return std::filesystem::path("/tmp") / ("torchinductor_" + (user.empty() ? std::string("unknown") : user));
}

bool fxGraphCacheEnabled(const vm::Value& backendOptions) {
    if (const char* env = std::getenv("TORCHINDUCTOR_FX_GRAPH_CACHE"); env && *env) return std::string_view(env) == "1";
    if (const char* env = std::getenv("TORCHINDUCTOR_FORCE_DISABLE_CACHES"); env && std::string_view(env) == "1") return false;
    return inductorFlag(backendOptions, "fx_graph_cache");
}

Schedule scheduleThroughCache(const fx::Graph& graph, const vm::ValueList& examples, const InductorConfig& config,
                              const LoweredGraph& lowered, const std::function<Schedule()>& schedule) {
    if (!config.fxGraphCache) return schedule();
    const CacheKey key = cacheKey(graph, examples, config, lowered);
    if (!key.bypassReason.empty()) {
        const nlohmann::ordered_json event = {{"cache_bypass_reason", key.bypassReason}, {"cache_state", "bypass"}, {"cache_event_time", nowNs()}};
        fx::reportCacheEvent({"fx_graph", "bypass", event.dump()});
        return schedule();
    }
    const kernel_cache::DiskKernelCache cache(inductorCacheDir() / "fxgraph", ".fxgraph");
    const std::string keyText = key.text();
    // PyTorch's fx_graph_cache_<state> artifact: the key and its components, then what the lookup found.
    const auto event = [&](const char* state) {
        return nlohmann::ordered_json{{"key", key.hash()}, {"components", key.components}, {"cache_state", state}};
    };
    if (std::optional<std::string> entry = cache.load(keyText)) {
        // Layout: the nanoseconds the scheduler took when the entry was made, a newline, the encoded schedule.
        const size_t newline = entry->find('\n');
        std::optional<Schedule> cached = newline == std::string::npos ? std::nullopt : decodeSchedule(entry->substr(newline + 1));
        if (cached && fits(*cached, lowered)) {
            nlohmann::ordered_json hit = event("hit");
            hit["time_saved_ns"] = std::atoll(entry->substr(0, newline).c_str());
            hit["cache_event_time"] = nowNs();
            fx::reportCacheEvent({"fx_graph", "hit", hit.dump()});
            return std::move(*cached);
        }
    }
    const auto started = std::chrono::steady_clock::now();
    Schedule made = schedule();
    const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count();
    cache.store(keyText, std::to_string(took) + "\n" + encodeSchedule(made));
    nlohmann::ordered_json miss = event("miss");
    miss["cache_event_time"] = nowNs();
    fx::reportCacheEvent({"fx_graph", "miss", miss.dump()});
    return made;
}

}  // namespace eng::inductor
