// Source names as Dynamo prints them and reading a source back from a frame (the guard tree's accessors take
// the same steps, each source read once per call).
#include "capture/source.h"

#include <fmt/format.h>

#include <cctype>

#include "fx/fx_printer.h"

namespace eng::capture {

namespace {

/// A dict key as Dynamo prints it in a source (`G['d'][frozenset()]`, `L['d'][(1, 'a')]`); a key without a literal
/// spelling (an object hashed by identity) prints as its address, so two keys never share a source name.
std::string keyText(const vm::Value& key) {
    std::string text = fx::constantText(key);
    if (text.find("<object>") == std::string::npos) return text;
    return fmt::format("<object at {}>", static_cast<const void*>(key.object().get()));
}

}  // namespace

SourceRef Source::local(std::string name, int64_t slot) {
    auto s = std::make_shared<Source>();
    s->kind = Kind::Local;
    s->name = std::move(name);
    s->index = slot;
    return s;
}

SourceRef Source::global(std::string name) {
    auto s = std::make_shared<Source>();
    s->kind = Kind::Global;
    s->name = std::move(name);
    return s;
}

namespace {
constexpr std::string_view kImportPrefix = "__import_";
constexpr std::string_view kDot = "_dot_";
}  // namespace

SourceRef Source::importedModule(const std::string& module) {
    std::string name(kImportPrefix);
    for (char c : module) name += c == '.' ? std::string(kDot) : std::string(1, c);
    return global(std::move(name));
}

SourceRef Source::child(SourceRef base, Kind kind, std::string name) {
    auto s = std::make_shared<Source>();
    s->kind = kind;
    s->name = std::move(name);
    s->base = std::move(base);
    return s;
}

SourceRef Source::item(SourceRef base, int64_t index) {
    auto s = std::make_shared<Source>();
    s->kind = Kind::Item;
    s->index = index;
    s->base = std::move(base);
    return s;
}

SourceRef Source::dictItem(SourceRef base, vm::Value key) {
    auto s = std::make_shared<Source>();
    s->kind = Kind::DictItem;
    s->key = std::move(key);
    s->base = std::move(base);
    return s;
}

SourceRef Source::dictItemAt(SourceRef base, SourceRef keySource) {
    auto s = std::make_shared<Source>();
    s->kind = Kind::DictItem;
    s->keySource = std::move(keySource);
    s->base = std::move(base);
    return s;
}

std::string Source::str() const {
    switch (kind) {
        case Kind::Local: return "L['" + name + "']";
        case Kind::Global: return "G['" + name + "']";
        case Kind::Attr: return base->str() + "." + name;
        case Kind::ModuleChild: return base->str() + "._modules['" + name + "']";
        case Kind::Parameter: return base->str() + "._parameters['" + name + "']";
        case Kind::Buffer: return base->str() + "._buffers['" + name + "']";
        case Kind::Item: return base->str() + "[" + std::to_string(index) + "]";
        case Kind::DictItem:
            if (keySource) return base->str() + "[" + keySource->str() + "]";
            return base->str() + "[" + keyText(key) + "]";
    }
    return "?";
}

std::string Source::stripped() const { return stripLocalScope(str()); }

std::string Source::placeholderName() const {
    std::string text = str();
    std::string out;
    bool inRun = false;
    for (char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            out += c;
            inRun = false;
        } else if (!inRun) {
            out += '_';
            inRun = true;
        }
    }
    return out;
}

std::string stripLocalScope(const std::string& text) {
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, 3, "L['") == 0 && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
            size_t end = text.find("']", i + 3);
            if (end != std::string::npos) {
                out += text.substr(i + 3, end - i - 3);
                i = end + 2;
                continue;
            }
        }
        out += text[i++];
    }
    return out;
}

std::optional<vm::Value> readSourceStep(vm::Interpreter& vm, const Source& source, const std::optional<vm::Value>& base,
                                        const std::optional<vm::Value>& keyValue, const vm::ValueList& locals,
                                        const vm::Namespace& globals) {
    switch (source.kind) {
        case Source::Kind::Local: {
            if (source.index < 0 || static_cast<size_t>(source.index) >= locals.size()) return std::nullopt;
            const vm::Value& v = locals[static_cast<size_t>(source.index)];
            if (v.isNull()) return std::nullopt;
            return v;
        }
        case Source::Kind::Global: {
            auto it = globals.find(source.name);
            if (it != globals.end()) return it->second;
            if (source.name.rfind(kImportPrefix, 0) != 0) return std::nullopt;
            std::string module = source.name.substr(kImportPrefix.size());
            for (size_t at = module.find(kDot); at != std::string::npos; at = module.find(kDot, at + 1)) module.replace(at, kDot.size(), ".");
            auto found = vm.modules().find(module);
            if (found == vm.modules().end()) return std::nullopt;
            return found->second;
        }
        default: break;
    }
    if (!base) return std::nullopt;
    if (source.kind == Source::Kind::Item) {
        if (base->is(vm::Kind::List) || base->is(vm::Kind::Tuple)) {
            const auto& items = base->is(vm::Kind::List) ? base->as<vm::ListObject>().items : base->as<vm::TupleObject>().items;
            if (source.index < 0 || static_cast<size_t>(source.index) >= items.size()) return std::nullopt;
            return items[static_cast<size_t>(source.index)];
        }
        return std::nullopt;
    }
    if (source.kind == Source::Kind::DictItem) {
        if (!base->is(vm::Kind::Dict)) return std::nullopt;
        const std::optional<vm::Value>& key = source.keySource ? keyValue : std::optional<vm::Value>(source.key);
        if (!key) return std::nullopt;
        vm::Value* item = base->as<vm::DictObject>().find(*key);
        if (!item) return std::nullopt;
        return *item;
    }
    if (base->is(vm::Kind::Instance)) {
        auto& attributes = base->as<vm::InstanceObject>().attributes;
        auto it = attributes.find(source.name);
        if (it != attributes.end()) return it->second;
    }
    try {
        return vm.findAttr(*base, source.name);
    } catch (...) {
        return std::nullopt;
    }
}

std::optional<vm::Value> readSource(vm::Interpreter& vm, const Source& source, const vm::ValueList& locals,
                                    const vm::Namespace& globals) {
    if (source.kind == Source::Kind::Local || source.kind == Source::Kind::Global)
        return readSourceStep(vm, source, std::nullopt, std::nullopt, locals, globals);
    std::optional<vm::Value> base = readSource(vm, *source.base, locals, globals);
    if (!base) return std::nullopt;
    std::optional<vm::Value> key;
    if (source.kind == Source::Kind::DictItem && source.keySource) key = readSource(vm, *source.keySource, locals, globals);
    return readSourceStep(vm, source, base, key, locals, globals);
}

}  // namespace eng::capture
