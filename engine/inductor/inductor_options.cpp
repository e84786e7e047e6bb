// The inductor options table and its checks (see inductor_options.h).
#include "inductor/inductor_options.h"

#include <fmt/format.h>

#include "vm/interpreter.h"

namespace eng::inductor {

using vm::DictObject;
using vm::Kind;
using vm::raise;
using vm::Value;

namespace {

const std::vector<fx::BackendOption>& inductorOptions() {
    static const std::vector<fx::BackendOption> options = {
        {"max_autotune", Value(false), "times candidate launch shapes of each generated CUDA kernel and keeps the fastest"},
        {"max_autotune_pointwise", Value(false), "as max_autotune, for pointwise kernels"},
        {"max_autotune_gemm", Value(false), "accepted: matrix products always use cuBLAS/OpenBLAS, which pick their own kernels"},
        {"triton.cudagraphs", Value(false), "replays CUDA graphs of the generated kernels (reduce-overhead)"},
        {"epilogue_fusion", Value(true), "bias and activations after a matrix product run in one fused kernel"},
        {"fallback_random", Value(false), "random ops always run on the eager runtime (their results equal eager)"},
        {"trace.enabled", Value(false), "writes the output code and every kernel's source under torch_compile_debug/"},
        {"trace.graph_diagram", Value(false), "with trace.enabled, also writes the fusion diagram as Graphviz DOT"},
        {"debug", Value(false), "as trace.enabled"},
        {"combo_kernels", Value(false), "independent pointwise kernels of different sizes run as one combo kernel (always for optimizer steps)"},
        {"shape_padding", Value(true), "CUDA mm/bmm/addmm operands with unaligned sizes padded with zeros where the padded product times faster; the result sliced back"},
        {"force_shape_pad", Value(false), "with shape_padding, pads every unaligned CUDA product without timing it"},
        {"freezing", Value(false), "with grad mode off, parameters and buffers are constants of the graph and what is computed from them alone is folded at compile time"},
        {"cpp_wrapper", Value(false), "the output code's wrapper written as C++ (cwb's executor, compiled C++, runs every wrapper: no Python wrapper runs either way)"},
        {"coordinate_descent_tuning", Value(false), "each kernel's launch configuration (CPU: the pieces its outer range splits into; CUDA: threads per block) tuned by coordinate descent on its first launch"},
        {"fx_graph_cache", Value(true), "each graph's schedule kept on disk under TORCHINDUCTOR_CACHE_DIR and reused by later runs (TORCHINDUCTOR_FX_GRAPH_CACHE=0 turns it off)"},
        {"aggressive_fusion", Value(false), "pointwise kernels over the same iteration space fuse even when they share no data"},
    };
    return options;
}

const fx::BackendOption* findOption(const std::string& name) {
    for (const fx::BackendOption& option : inductorOptions())
        if (option.name == name) return &option;
    return nullptr;
}

const char* typeName(Kind kind) { return kind == Kind::Bool ? "bool" : kind == Kind::Int ? "int" : kind == Kind::Float ? "float" : "str"; }

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
        const fx::BackendOption* spec = findOption(attr);
        if (!spec) {
            std::vector<std::string> known;
            for (const fx::BackendOption& option : inductorOptions()) known.push_back("'" + option.name + "'");
            raise("RuntimeError", fmt::format("Unexpected optimization option {}, known options are [{}]", name, fmt::join(known, ", ")));
        }
        if (!value.is(spec->torchDefault.kind()))
            raise("RuntimeError", fmt::format("Unexpected type of attr {}, got {} should be {}", name,
                                              value.is(Kind::Int) ? "int" : value.is(Kind::Float) ? "float" : value.is(Kind::Str) ? "str" : "object",
                                              typeName(spec->torchDefault.kind())));
    }
}

bool inductorFlag(const Value& options, const std::string& name, bool fallback) {
    if (!options.is(Kind::Dict)) return fallback;
    for (const auto& [key, value] : options.as<DictObject>().entries())
        if (key.is(Kind::Str) && key.str() == name) return value.asInt() != 0;
    return fallback;
}

}  // namespace eng::inductor
