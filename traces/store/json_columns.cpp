// JSON column encodings (see json_columns.h). Malformed column text decodes to an empty list.
#include "store/json_columns.h"

#include <nlohmann/json.hpp>

namespace traces {

std::string stackToJson(const Stack& stack) {
    nlohmann::json out = nlohmann::json::array();
    for (const Frame& f : stack) {
        out.push_back({{"file", f.file}, {"line", f.line}, {"function", f.function}, {"source", f.source}});
    }
    return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Stack stackFromJson(std::string_view json) {
    Stack stack;
    auto parsed = nlohmann::json::parse(json, nullptr, false);
    if (!parsed.is_array()) return stack;
    for (const auto& item : parsed) {
        if (!item.is_object()) continue;
        stack.push_back(Frame{item.value("file", ""), item.value("line", 0), item.value("function", ""),
                              item.value("source", "")});
    }
    return stack;
}

std::string stringsToJson(const std::vector<std::string>& items) {
    // Graph node inputs are most of an import's rows and are plain names: those are written directly. Anything
    // JSON escapes or nlohmann replaces (quotes, backslashes, control bytes, non-ASCII) goes through nlohmann,
    // so the text is the same either way.
    size_t size = 2;
    for (const std::string& item : items) {
        for (unsigned char c : item) {
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\')
                return nlohmann::json(items).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
        size += item.size() + 3;
    }
    std::string out;
    out.reserve(size);
    out += '[';
    for (const std::string& item : items) {
        if (out.size() > 1) out += ',';
        out += '"';
        out += item;
        out += '"';
    }
    out += ']';
    return out;
}

std::vector<std::string> stringsFromJson(std::string_view json) {
    std::vector<std::string> items;
    auto parsed = nlohmann::json::parse(json, nullptr, false);
    if (!parsed.is_array()) return items;
    for (const auto& item : parsed)
        if (item.is_string()) items.push_back(item.get<std::string>());
    return items;
}

}  // namespace traces
