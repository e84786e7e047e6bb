// CompileKey formatting and parsing, in PyTorch's and tlparse's spellings.
#include "model/trace_model.h"

#include <charconv>

namespace traces {
namespace {

std::optional<int> readInt(std::string_view& s) {
    int value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc() || ptr == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<size_t>(ptr - s.data()));
    return value;
}

bool eat(std::string_view& s, char c) {
    if (s.empty() || s.front() != c) return false;
    s.remove_prefix(1);
    return true;
}

}  // namespace

std::string CompileKey::str() const {
    std::string out;
    if (autogradId) {
        out += "!" + std::to_string(*autogradId);
        if (!frameId) return out;
        out += "/";
    }
    if (!frameId || !frameCompileId) return out;
    out += std::to_string(*frameId) + "/" + std::to_string(*frameCompileId);
    if (attempt != 0) out += "_" + std::to_string(attempt);
    return out;
}

std::string CompileKey::display() const {
    auto dash = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("-"); };
    std::string out = "[";
    if (autogradId) out += "!" + std::to_string(*autogradId) + "/";
    out += dash(frameId) + "/" + dash(frameCompileId);
    if (attempt != 0) out += "_" + std::to_string(attempt);
    return out + "]";
}

std::optional<CompileKey> parseCompileKey(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
    CompileKey key;
    if (eat(text, '!')) {
        key.autogradId = readInt(text);
        if (!key.autogradId) return std::nullopt;
        if (text.empty()) return key;
        if (!eat(text, '/')) return std::nullopt;
    }
    key.frameId = readInt(text);
    if (!key.frameId || !eat(text, '/')) return std::nullopt;
    key.frameCompileId = readInt(text);
    if (!key.frameCompileId) return std::nullopt;
    if (eat(text, '_')) {
        auto attempt = readInt(text);
        if (!attempt) return std::nullopt;
        key.attempt = *attempt;
    }
    if (!text.empty()) return std::nullopt;
    return key;
}

}  // namespace traces
