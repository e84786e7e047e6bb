// The inductor options table and its checks (see inductor_options.h).
#include "inductor/inductor_options.h"

#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "vm/interpreter.h"

namespace eng::inductor {

using vm::DictObject;
using vm::Kind;
using vm::raise;
using vm::Value;

namespace {

/// What cwb does with the keys it acts on; every other key of torch's config is accepted for what its group is
/// (groupMeaning). The keys, their defaults and the types torch checks come from torch_inductor_config.def.
const std::map<std::string, std::string>& cwbMeanings() {
    static const std::map<std::string, std::string> meanings = {
        {"max_autotune", "times candidate launch shapes of each generated CUDA kernel and keeps the fastest"},
        {"max_autotune_pointwise", "as max_autotune, for pointwise kernels"},
        {"max_autotune_gemm", "accepted: matrix products always use cuBLAS/OpenBLAS, which pick their own kernels"},
        {"triton.cudagraphs", "replays CUDA graphs of the generated kernels (reduce-overhead)"},
        {"triton.cudagraph_skip_dynamic_graphs", "graphs with dynamic sizes run without CUDA graphs"},
        {"triton.unique_kernel_names", "kernels are named after the ops they fuse (cwb_poi_fused_sin_mul_0); off, by their kind and number (cwb_poi_0)"},
        {"triton.descriptive_names", "with unique_kernel_names, which names a kernel takes from its ops: the graph's ops (original_aten, torch, inductor_node); False, none"},
        {"epilogue_fusion", "bias and activations after a matrix product run in one fused kernel"},
        {"fallback_random", "random ops always run on the eager runtime (their results equal eager)"},
        {"trace.enabled", "writes the output code and every kernel's source under torch_compile_debug/"},
        {"trace.graph_diagram", "with trace.enabled, also writes the fusion diagram as Graphviz DOT"},
        {"debug", "as trace.enabled"},
        {"combo_kernels", "independent pointwise kernels of different sizes run as one combo kernel (always for optimizer steps)"},
        {"shape_padding", "CUDA mm/bmm/addmm operands with unaligned sizes padded with zeros where the padded product times faster; the result sliced back"},
        {"comprehensive_padding", "with shape_padding, values several nodes read with wide unaligned rows are stored with rows padded to 128 bytes"},
        {"force_shape_pad", "with shape_padding, pads every unaligned CUDA product without timing it"},
        {"freezing", "with grad mode off, parameters and buffers are constants of the graph and what is computed from them alone is folded at compile time"},
        {"cpp_wrapper", "the output code's wrapper written as C++ (cwb's executor, compiled C++, runs every wrapper: no Python wrapper runs either way)"},
        {"coordinate_descent_tuning", "each kernel's launch configuration (CPU: the pieces its outer range splits into; CUDA: threads per block) tuned by coordinate descent on its first launch"},
        {"fx_graph_cache", "each graph's schedule kept on disk under TORCHINDUCTOR_CACHE_DIR and reused by later runs (TORCHINDUCTOR_FX_GRAPH_CACHE=0 turns it off)"},
        {"aggressive_fusion", "pointwise kernels over the same iteration space fuse even when they share no data"},
        {"max_fusion_size", "the most graph nodes one buffer's body fuses and the most buffers one kernel fuses"},
        {"nan_asserts", "after each kernel and library call, its outputs are checked for NaN and infinity (AssertionError naming the buffer)"},
        {"cpp.threads", "the most threads a CPU kernel's outer range is split over (-1: all of the worker pool's)"},
        {"size_asserts", "cwb always checks each call's inputs against the compiled sizes (a layout that differs is copied), so this changes nothing"},
        {"emulate_precision_casts", "cwb always rounds 16-bit intermediates as eager does, so this changes nothing"},
        {"online_softmax", "cwb's softmax rows always read their input once for the max and the sum, so this changes nothing"},
    };
    return meanings;
}

/// Why a key cwb does not act on changes nothing, by the part of Inductor it configures.
std::string groupMeaning(const std::string& name) {
    static const std::vector<std::pair<std::string, std::string>> groups = {
        {"triton.", "accepted: tunes Triton's code generator; cwb writes CUDA C++ and LLVM IR itself"},
        {"cuda.", "accepted: configures CUTLASS templates, which cwb does not use (its products are cuBLAS)"},
        {"cutlass.", "accepted: configures CUTLASS templates, which cwb does not use (its products are cuBLAS)"},
        {"xpu.", "accepted: configures Intel GPU code generation, which cwb does not have"},
        {"aten_distributed_optimizations.", "accepted: configures collective-communication passes; cwb compiles single-process graphs"},
        {"_collective.", "accepted: configures collective-communication passes; cwb compiles single-process graphs"},
        {"rocm.", "accepted: configures ROCm code generation, which cwb does not have"},
        {"halide.", "accepted: configures the Halide backend, which cwb does not have"},
        {"aot_inductor", "accepted: configures AOTInductor packaging, which cwb does not have"},
        {"cpp.", "accepted: tunes Inductor's C++ code generator; cwb's CPU kernels are LLVM IR"},
        {"trace.", "accepted: what torch_compile_debug/ holds besides cwb's output code, kernels and fusion diagram"},
        {"test_configs.", "accepted: PyTorch's own test switches"},
    };
    for (const auto& [prefix, meaning] : groups)
        if (name.rfind(prefix, 0) == 0) return meaning;
    return "accepted: tunes a part of Inductor cwb does not have in that form; changes nothing";
}

vm::Value torchDefault(const std::string& k, const char* literal) {
    if (k == "Bool") return Value(std::string(literal) == "true");
    if (k == "Int") return Value(static_cast<int64_t>(std::stoll(literal)));
    if (k == "Float") return Value(std::stod(literal));
    if (k == "Str") return vm::makeStr(literal);
    if (k == "List") return vm::makeList({});
    if (k == "Dict") return Value(std::make_shared<DictObject>());
    return Value();  // None, and values with no literal form (their repr is in the .def)
}

struct ConfigKey {
    std::string checkedType;  // the type torch.compile checks an option's value against; "" for none
};

/// torch._inductor.config's keys in torch's order, with the type torch checks each against.
const std::vector<std::pair<fx::BackendOption, ConfigKey>>& configKeys() {
    static const std::vector<std::pair<fx::BackendOption, ConfigKey>> keys = [] {
        std::vector<std::pair<fx::BackendOption, ConfigKey>> out;
#define CWB_TORCH_INDUCTOR_CONFIG(name, checked, kind, literal)                                                  \
    {                                                                                                           \
        const auto meaning = cwbMeanings().find(name);                                                          \
        out.push_back({fx::BackendOption{name, torchDefault(#kind, literal),                                    \
                                         meaning != cwbMeanings().end() ? meaning->second : groupMeaning(name)}, \
                       ConfigKey{checked}});                                                                    \
    }
#include "inductor/torch_inductor_config.def"
#undef CWB_TORCH_INDUCTOR_CONFIG
        return out;
    }();
    return keys;
}

const std::vector<fx::BackendOption>& inductorOptions() {
    static const std::vector<fx::BackendOption> options = [] {
        std::vector<fx::BackendOption> out;
        for (const auto& [option, key] : configKeys()) out.push_back(option);
        return out;
    }();
    return options;
}

const std::pair<fx::BackendOption, ConfigKey>* findKey(const std::string& name) {
    for (const auto& entry : configKeys())
        if (entry.first.name == name) return &entry;
    return nullptr;
}

/// Python's isinstance(value, <checked type>) for the types torch.compile checks options against.
bool hasCheckedType(const Value& value, const std::string& checked) {
    if (checked.empty() || checked == "object") return true;
    if (checked == "bool") return value.is(Kind::Bool);
    if (checked == "int") return value.is(Kind::Int) || value.is(Kind::Bool);
    if (checked == "float") return value.is(Kind::Float);
    if (checked == "str") return value.is(Kind::Str);
    if (checked == "list") return value.is(Kind::List);
    if (checked == "dict") return value.is(Kind::Dict);
    if (checked == "tuple") return value.is(Kind::Tuple);
    if (checked == "NoneType") return value.isNone();
    return true;  // a class of torch's own (a custom pass type): cwb has no such class to check against
}

/// The Python type name of an option's value, for torch's "Unexpected type of attr" message.
std::string optionTypeName(const Value& value) {
    switch (value.kind()) {
        case Kind::None: return "NoneType";
        case Kind::Bool: return "bool";
        case Kind::Int: return "int";
        case Kind::Float: return "float";
        case Kind::Str: return "str";
        case Kind::List: return "list";
        case Kind::Tuple: return "tuple";
        case Kind::Dict: return "dict";
        default: return "object";
    }
}

/// Python's truth value of an option's value (bools, numbers, strings, None, containers).
bool optionTruth(const Value& value) {
    switch (value.kind()) {
        case Kind::None: return false;
        case Kind::Bool:
        case Kind::Int: return value.asInt() != 0;
        case Kind::Float: return value.asFloat() != 0.0;
        case Kind::Str: return !value.str().empty();
        case Kind::Dict: return !value.as<DictObject>().entries().empty();
        default: return true;
    }
}

/// The value `name` has in `options`, or nullptr when the dict does not set it.
const Value* optionValue(const Value& options, const std::string& name) {
    if (!options.is(Kind::Dict)) return nullptr;
    for (const auto& [key, value] : options.as<DictObject>().entries())
        if (key.is(Kind::Str) && key.str() == name) return &value;
    return nullptr;
}

}  // namespace

fx::BackendOptionTable inductorOptionTable() {
    return {.options = inductorOptions(),
            .modes = {{"default", {}},
                      {"reduce-overhead", {{"triton.cudagraphs", true}}},
                      {"max-autotune-no-cudagraphs", {{"max_autotune", true}, {"coordinate_descent_tuning", true}}},
                      {"max-autotune", {{"max_autotune", true}, {"triton.cudagraphs", true}, {"coordinate_descent_tuning", true}}}},
            .check = validateInductorOptions};
}

void validateInductorOptions(const Value& options) {
    if (options.isNone()) return;
    if (!options.is(Kind::Dict)) raise("RuntimeError", "torch.compile's options must be a dict");
    for (const auto& [key, value] : options.as<DictObject>().entries()) {
        const std::string name = key.str();
        std::string attr = name;
        for (char& c : attr)
            if (c == '-') c = '_';
        const auto* entry = findKey(attr);
        if (!entry) {
            std::vector<std::string> known;
            for (const fx::BackendOption& option : inductorOptions()) known.push_back("'" + option.name + "'");
            raise("RuntimeError", fmt::format("Unexpected optimization option {}, known options are [{}]", name, fmt::join(known, ", ")));
        }
        if (!hasCheckedType(value, entry->second.checkedType))
            raise("RuntimeError", fmt::format("Unexpected type of attr {}, got {} should be {}", name, optionTypeName(value), entry->second.checkedType));
    }
}

Value inductorOption(const Value& options, const std::string& name) {
    if (const Value* set = optionValue(options, name)) return *set;
    const auto* entry = findKey(name);
    if (!entry) throw std::logic_error("inductor option " + name + " is not a key of torch._inductor.config");
    return entry->first.torchDefault;
}

bool inductorFlag(const Value& options, const std::string& name) { return optionTruth(inductorOption(options, name)); }

bool inductorFlag(const Value& options, const std::string& name, bool fallback) {
    const Value* set = optionValue(options, name);
    return set ? optionTruth(*set) : fallback;
}

}  // namespace eng::inductor
