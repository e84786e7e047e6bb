// JSON column encodings (see json_columns.h). Malformed column text decodes to an empty list.
#include "store/json_columns.h"

#include <simdjson.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <nlohmann/json.hpp>

namespace traces {
namespace {

/// GraphNode's fields in their JSON order (json_columns.h): the one list that the encoders and the decoder follow.
template <class Node, class Visit>
void forEachNodeField(Node& node, Visit&& visit) {
    visit(node.index);
    visit(node.name);
    visit(node.op);
    visit(node.target);
    visit(node.args);
    visit(node.inputs);
    visit(node.shape);
    visit(node.dtype);
    visit(node.stride);
    visit(node.device);
    visit(node.sourceFile);
    visit(node.sourceLine);
    visit(node.sourceFunction);
    visit(node.sourceCode);
}

/// True when one of the 8 bytes of `word` is a control byte, '"' or '\\' (JSON escapes those); may say true for
/// a word without one, never false for a word with one. The exact check runs on words it flags.
constexpr uint64_t kOnes = 0x0101010101010101u;
constexpr uint64_t kHighBits = 0x8080808080808080u;
constexpr bool mayNeedEscape(uint64_t word) {
    auto hasZeroByte = [](uint64_t v) { return (v - kOnes) & ~v & kHighBits; };
    uint64_t control = (word - kOnes * 0x20) & ~word & kHighBits;
    return (control | hasZeroByte(word ^ (kOnes * '"')) | hasZeroByte(word ^ (kOnes * '\\'))) != 0;
}

/// Appends `text` as a JSON string escaped as nlohmann's dump escapes it; notes bytes that need a UTF-8 check.
void appendJson(std::string& out, std::string_view text, bool& nonAscii) {
    // Node texts are plain ASCII nearly always: test 8 bytes at a time and copy the text whole.
    size_t clean = 0;
    uint64_t highBits = 0;
    for (; clean + 8 <= text.size(); clean += 8) {
        uint64_t word;
        std::memcpy(&word, text.data() + clean, 8);
        if (mayNeedEscape(word)) break;
        highBits |= word & kHighBits;
    }
    if (highBits) nonAscii = true;
    out += '"';
    out.append(text.data(), clean);
    size_t copied = clean;
    for (size_t i = clean; i < text.size(); ++i) {
        auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            nonAscii = true;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(text, copied, i - copied);
        copied = i + 1;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default: {
                static constexpr char kHex[] = "0123456789abcdef";
                out += "\\u00";
                out += kHex[c >> 4];
                out += kHex[c & 15];
            }
        }
    }
    out.append(text, copied, text.size() - copied);
    out += '"';
}
void appendJson(std::string& out, int value, bool&) {
    char digits[16];
    auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}
void appendJson(std::string& out, const std::vector<std::string>& items, bool& nonAscii) {
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        appendJson(out, items[i], nonAscii);
    }
    out += ']';
}

/// The size of `text` as a JSON string (quotes included) when no byte of it needs escaping, else npos.
size_t plainJsonSize(std::string_view text, bool& nonAscii) {
    uint64_t highBits = 0;
    size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, text.data() + i, 8);
        if (mayNeedEscape(word)) return std::string_view::npos;
        highBits |= word & kHighBits;
    }
    for (; i < text.size(); ++i) {
        auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == '"' || c == '\\') return std::string_view::npos;
        highBits |= c & 0x80;
    }
    if (highBits) nonAscii = true;
    return text.size() + 2;
}
size_t plainJsonSize(int, bool&) { return 11; }  // at most: "-2147483648"
size_t plainJsonSize(const std::vector<std::string>& items, bool& nonAscii) {
    size_t size = items.size() + 2;  // brackets and commas, one spare
    for (const std::string& item : items) {
        size_t itemSize = plainJsonSize(item, nonAscii);
        if (itemSize == std::string_view::npos) return itemSize;
        size += itemSize;
    }
    return size;
}

char* writePlain(char* at, std::string_view text) {
    *at++ = '"';
    std::memcpy(at, text.data(), text.size());
    at += text.size();
    *at++ = '"';
    return at;
}
char* writePlain(char* at, int value) { return std::to_chars(at, at + 11, value).ptr; }
char* writePlain(char* at, const std::vector<std::string>& items) {
    *at++ = '[';
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) *at++ = ',';
        at = writePlain(at, items[i]);
    }
    *at++ = ']';
    return at;
}

/// The nodes' JSON when none of their texts needs escaping (every real log so far): sized first, then copied
/// into place. False, with `out` unspecified, when some text needs escaping.
bool writePlainNodes(const std::vector<GraphNode>& nodes, std::string& out, bool& nonAscii) {
    size_t size = 2;
    bool plain = true;
    for (const GraphNode& node : nodes) {
        size += 16;  // brackets and commas: 15, one spare
        forEachNodeField(node, [&](const auto& value) {
            size_t valueSize = plain ? plainJsonSize(value, nonAscii) : 0;
            plain = plain && valueSize != std::string_view::npos;
            if (plain) size += valueSize;
        });
        if (!plain) return false;
    }
    out.resize(size);
    char* at = out.data();
    *at++ = '[';
    for (const GraphNode& node : nodes) {
        if (&node != nodes.data()) *at++ = ',';
        char separator = '[';
        forEachNodeField(node, [&](const auto& value) {
            *at++ = separator;
            separator = ',';
            at = writePlain(at, value);
        });
        *at++ = ']';
    }
    *at++ = ']';
    out.resize(static_cast<size_t>(at - out.data()));
    return true;
}

bool readJson(simdjson::dom::element value, int& out) {
    int64_t number = 0;
    if (value.get_int64().get(number)) return false;
    out = static_cast<int>(number);
    return true;
}
bool readJson(simdjson::dom::element value, std::string& out) {
    std::string_view text;
    if (value.get_string().get(text)) return false;
    out = text;
    return true;
}
bool readJson(simdjson::dom::element value, std::vector<std::string>& out) {
    simdjson::dom::array items;
    if (value.get_array().get(items)) return false;
    for (simdjson::dom::element item : items) {
        std::string_view text;
        if (item.get_string().get(text)) return false;
        out.emplace_back(text);
    }
    return true;
}

}  // namespace

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

bool operator==(const GraphNode& a, const GraphNode& b) {
    auto fields = [](const GraphNode& n) {
        return std::tie(n.index, n.name, n.op, n.target, n.args, n.inputs, n.shape, n.dtype, n.stride, n.device,
                        n.sourceFile, n.sourceLine, n.sourceFunction, n.sourceCode);
    };
    return fields(a) == fields(b);
}

std::string graphNodesToJson(const std::vector<GraphNode>& nodes) {
    std::string out;
    bool nonAscii = false;
    if (!writePlainNodes(nodes, out, nonAscii)) {
        out.clear();
        out += '[';
        for (const GraphNode& node : nodes) {
            if (out.size() > 1) out += ',';
            char separator = '[';
            forEachNodeField(node, [&](const auto& value) {
                out += separator;
                separator = ',';
                appendJson(out, value, nonAscii);
            });
            out += ']';
        }
        out += ']';
    }
    if (!nonAscii || simdjson::validate_utf8(out.data(), out.size())) return out;
    // Text that is not UTF-8 (a log's stray bytes): nlohmann replaces what cannot be encoded, as for other lists.
    nlohmann::json all = nlohmann::json::array();
    for (const GraphNode& node : nodes) {
        nlohmann::json fields = nlohmann::json::array();
        forEachNodeField(node, [&](const auto& value) { fields.push_back(value); });
        all.push_back(std::move(fields));
    }
    return all.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<GraphNode> graphNodesFromJson(std::string_view json) {
    std::vector<GraphNode> nodes;
    thread_local simdjson::dom::parser parser;
    simdjson::dom::array list;
    if (parser.parse(json.data(), json.size()).get_array().get(list)) return nodes;
    nodes.reserve(list.size());
    for (simdjson::dom::element item : list) {
        simdjson::dom::array fields;
        if (item.get_array().get(fields)) continue;
        GraphNode node;
        auto field = fields.begin();
        bool complete = true;
        forEachNodeField(node, [&](auto& value) {
            complete = complete && field != fields.end() && readJson(*field, value);
            if (complete) ++field;
        });
        if (complete) nodes.push_back(std::move(node));
    }
    return nodes;
}

}  // namespace traces
