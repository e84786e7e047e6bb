// Python's float and string repr. Float digits come from std::to_chars' shortest round-trip form; the layout
// (fixed or scientific) follows CPython's float_repr_style 'short' rules.
#include "python/python_repr.h"

#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace eng::python {

std::string floatRepr(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    std::string_view scientific(buffer, static_cast<size_t>(result.ptr - buffer));
    std::string sign;
    if (scientific.front() == '-') {
        sign = "-";
        scientific.remove_prefix(1);
    }
    size_t e = scientific.find('e');
    std::string digits;
    for (char c : scientific.substr(0, e))
        if (c != '.') digits += c;
    int exponent = std::atoi(std::string(scientific.substr(e + 1)).c_str());
    // decimalPoint: where the point goes relative to the digits, so value = 0.DIGITS * 10**decimalPoint.
    int decimalPoint = exponent + 1;
    if (decimalPoint <= -4 || decimalPoint > 16) {
        std::string mantissa = digits.substr(0, 1);
        if (digits.size() > 1) mantissa += "." + digits.substr(1);
        return fmt::format("{}{}e{}{:02d}", sign, mantissa, exponent < 0 ? '-' : '+', std::abs(exponent));
    }
    int digitCount = static_cast<int>(digits.size());
    if (decimalPoint <= 0) return sign + "0." + std::string(static_cast<size_t>(-decimalPoint), '0') + digits;
    if (decimalPoint >= digitCount)
        return sign + digits + std::string(static_cast<size_t>(decimalPoint - digitCount), '0') + ".0";
    return sign + digits.substr(0, static_cast<size_t>(decimalPoint)) + "." +
           digits.substr(static_cast<size_t>(decimalPoint));
}

std::string stringRepr(std::string_view text) {
    bool hasSingle = text.find('\'') != std::string_view::npos;
    bool hasDouble = text.find('"') != std::string_view::npos;
    char quote = hasSingle && !hasDouble ? '"' : '\'';
    std::string out(1, quote);
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        if (c == quote || c == '\\') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (byte < 0x20 || byte == 0x7F) {
            out += fmt::format("\\x{:02x}", byte);
        } else {
            out += c;
        }
    }
    out += quote;
    return out;
}

}  // namespace eng::python
