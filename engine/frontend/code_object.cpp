// Constant comparison and repr, the run-length line table, and code object queries.
#include "frontend/code_object.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "python/python_repr.h"

namespace eng::frontend {

bool sameConstant(const Constant& a, const Constant& b) {
    if (a.value.index() != b.value.index()) return false;
    return std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            const T& y = std::get<T>(b.value);
            if constexpr (std::is_same_v<T, NoneValue> || std::is_same_v<T, EllipsisValue>) {
                return true;
            } else if constexpr (std::is_same_v<T, double>) {
                return std::memcmp(&x, &y, sizeof x) == 0;  // keeps 0.0 and -0.0 apart
            } else if constexpr (std::is_same_v<T, ConstantTuple>) {
                return std::equal(x.items.begin(), x.items.end(), y.items.begin(), y.items.end(), sameConstant);
            } else {
                return x == y;
            }
        },
        a.value);
}

std::string constantRepr(const Constant& constant) {
    return std::visit(Overloaded{
                          [](NoneValue) -> std::string { return "None"; },
                          [](EllipsisValue) -> std::string { return "Ellipsis"; },
                          [](bool b) -> std::string { return b ? "True" : "False"; },
                          [](int64_t i) -> std::string { return std::to_string(i); },
                          [](double d) -> std::string { return python::floatRepr(d); },
                          [](const std::string& s) -> std::string { return python::stringRepr(s); },
                          [](const ConstantTuple& t) -> std::string {
                              std::string out = "(";
                              for (size_t i = 0; i < t.items.size(); ++i)
                                  out += (i ? ", " : "") + constantRepr(t.items[i]);
                              return out + (t.items.size() == 1 ? ",)" : ")");
                          },
                          [](const std::shared_ptr<const CodeObject>& code) -> std::string {
                              return fmt::format("<code object {}, file \"{}\", line {}>", code->name, code->filename,
                                                 code->firstLine);
                          },
                      },
                      constant.value);
}

void LineTable::add(uint32_t offset, SourceRange range) {
    if (!entries_.empty() && entries_.back().range == range) return;
    entries_.push_back(Entry{offset, range});
}

SourceRange LineTable::locationOf(uint32_t offset) const {
    auto after = std::upper_bound(entries_.begin(), entries_.end(), offset,
                                  [](uint32_t value, const Entry& entry) { return value < entry.startOffset; });
    if (after == entries_.begin()) return SourceRange{};
    return std::prev(after)->range;
}

std::string_view codeKindName(CodeKind kind) {
    switch (kind) {
        case CodeKind::Module: return "module";
        case CodeKind::Class: return "class body";
        case CodeKind::Function: return "function";
        case CodeKind::Lambda: return "lambda";
        case CodeKind::Comprehension: return "comprehension";
    }
    return "?";
}

std::vector<std::shared_ptr<const CodeObject>> CodeObject::nestedCode() const {
    std::vector<std::shared_ptr<const CodeObject>> out;
    for (const Constant& constant : constants)
        if (const auto* code = std::get_if<std::shared_ptr<const CodeObject>>(&constant.value)) out.push_back(*code);
    return out;
}

const std::string& CodeObject::derefName(uint32_t index) const {
    return index < cellVars.size() ? cellVars[index] : freeVars[index - cellVars.size()];
}

}  // namespace eng::frontend
