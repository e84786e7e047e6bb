// The inductor options table and its checks (see inductor_options.h).
#include "inductor/inductor_options.h"

#include <fmt/format.h>

#include "vm/inductor_config.h"
#include "vm/interpreter.h"

namespace eng::inductor {

using vm::DictObject;
using vm::Kind;
using vm::raise;
using vm::Value;

namespace {

const vm::InductorConfigEntry* findSpec(const std::string& name) {
    for (const vm::InductorConfigEntry& spec : vm::inductorConfigEntries())
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
        const vm::InductorConfigEntry* spec = findSpec(attr);
        if (!spec) {
            std::vector<std::string> known;
            for (const vm::InductorConfigEntry& s : vm::inductorConfigEntries()) known.push_back("'" + s.name + "'");
            raise("RuntimeError", fmt::format("Unexpected optimization option {}, known options are [{}]", name, fmt::join(known, ", ")));
        }
        if (!value.is(spec->torchDefault.kind()))
            raise("RuntimeError", fmt::format("Unexpected type of attr {}, got {} should be {}", name,
                                              value.is(Kind::Int) ? "int" : value.is(Kind::Float) ? "float" : value.is(Kind::Str) ? "str" : "object",
                                              typeName(spec->torchDefault.kind())));
        if (!spec->honoured && value.asInt() != 0)
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
