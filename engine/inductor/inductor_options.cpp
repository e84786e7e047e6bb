// The inductor options table and its checks (see inductor_options.h).
#include "inductor/inductor_options.h"

#include <fmt/format.h>

#include "vm/interpreter.h"

namespace eng::inductor {

using vm::DictObject;
using vm::Kind;
using vm::raise;
using vm::Value;

const std::vector<InductorOptionSpec>& inductorOptionSpecs() {
    static const std::vector<InductorOptionSpec> specs = {
        {"max_autotune", Kind::Bool, true, "times candidate launch shapes of each generated CUDA kernel and keeps the fastest"},
        {"max_autotune_pointwise", Kind::Bool, true, "as max_autotune, for pointwise kernels"},
        {"max_autotune_gemm", Kind::Bool, true, "accepted: matrix products always use cuBLAS/OpenBLAS, which pick their own kernels"},
        {"triton.cudagraphs", Kind::Bool, true, "replays CUDA graphs of the generated kernels (reduce-overhead)"},
        {"epilogue_fusion", Kind::Bool, true, "bias and activations after a matrix product run in one fused kernel"},
        {"fallback_random", Kind::Bool, true, "random ops always run on the eager runtime (their results equal eager)"},
        {"trace.enabled", Kind::Bool, true, "writes the output code and every kernel's source under torch_compile_debug/"},
        {"trace.graph_diagram", Kind::Bool, true, "with trace.enabled, also writes the fusion diagram as Graphviz DOT"},
        {"debug", Kind::Bool, true, "as trace.enabled"},
        {"combo_kernels", Kind::Bool, true, "independent pointwise kernels of different sizes run as one combo kernel (always for optimizer steps)"},
        {"shape_padding", Kind::Bool, false, "matrix operands are never padded: cuBLAS handles unaligned shapes"},
        {"freezing", Kind::Bool, false, "parameters are not folded into the graph as constants"},
        {"cpp_wrapper", Kind::Bool, false, "the wrapper is cwb's own C++ executor already; no generated C++ wrapper"},
        {"coordinate_descent_tuning", Kind::Bool, false, "only max_autotune's launch-shape search exists"},
        {"aggressive_fusion", Kind::Bool, false, "fusion only shares iteration spaces; no fusion across them"},
    };
    return specs;
}

namespace {

const InductorOptionSpec* findSpec(const std::string& name) {
    for (const InductorOptionSpec& spec : inductorOptionSpecs())
        if (spec.name == name) return &spec;
    return nullptr;
}

const char* typeName(Kind kind) { return kind == Kind::Bool ? "bool" : kind == Kind::Int ? "int" : kind == Kind::Float ? "float" : "str"; }

}  // namespace

void validateInductorOptions(const Value& options) {
    if (options.isNone()) return;
    if (!options.is(Kind::Dict)) raise("RuntimeError", "torch.compile's options must be a dict");
    for (const auto& [key, value] : options.as<DictObject>().entries) {
        const std::string name = key.str();
        std::string attr = name;
        for (char& c : attr)
            if (c == '-') c = '_';
        const InductorOptionSpec* spec = findSpec(attr);
        if (!spec) {
            std::vector<std::string> known;
            for (const InductorOptionSpec& s : inductorOptionSpecs()) known.push_back("'" + s.name + "'");
            raise("RuntimeError", fmt::format("Unexpected optimization option {}, known options are [{}]", name, fmt::join(known, ", ")));
        }
        if (!value.is(spec->type))
            raise("RuntimeError", fmt::format("Unexpected type of attr {}, got {} should be {}", name,
                                              value.is(Kind::Int) ? "int" : value.is(Kind::Float) ? "float" : value.is(Kind::Str) ? "str" : "object",
                                              typeName(spec->type)));
        if (!spec->supported && value.asInt() != 0)
            raise("RuntimeError", fmt::format("cwb cannot honour the inductor option {}=True: {}", name, spec->meaning));
    }
}

bool inductorFlag(const Value& options, const std::string& name, bool fallback) {
    if (!options.is(Kind::Dict)) return fallback;
    for (const auto& [key, value] : options.as<DictObject>().entries)
        if (key.is(Kind::Str) && key.str() == name) return value.asInt() != 0;
    return fallback;
}

}  // namespace eng::inductor
