// The str methods beyond methods.cpp's core set (rsplit, partition, zfill, the is* predicates, padding and case
// helpers, index/rfind), int's methods (bit_length, bit_count, as_integer_ratio), float's (is_integer,
// as_integer_ratio, hex, conjugate), and the builtins chr() and ord(),
// with CPython's results and error wording.
#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "vm/interpreter.h"

namespace eng::vm {

namespace {

using Method = std::function<Value(Interpreter&, const Value& self, CallArgs&)>;

const Value& argAt(CallArgs& args, size_t i, const std::string& name) {
    if (i >= args.positional.size()) typeError(fmt::format("{}() takes at least {} argument ({} given)", name, i + 1, args.positional.size()));
    return args.positional[i];
}

/// CPython's rsplit: from the right, at most maxsplit splits; None splits on runs of whitespace.
ValueList rsplitText(const std::string& text, const Value& separator, int64_t maxSplit) {
    std::vector<std::string> parts;
    if (separator.isNone()) {
        int64_t i = static_cast<int64_t>(text.size()) - 1;
        auto space = [&](int64_t k) { return std::isspace(static_cast<unsigned char>(text[static_cast<size_t>(k)])) != 0; };
        while (i >= 0) {
            while (i >= 0 && space(i)) --i;
            if (i < 0) break;
            if (maxSplit >= 0 && static_cast<int64_t>(parts.size()) == maxSplit) {
                int64_t begin = 0;
                while (space(begin)) ++begin;
                parts.push_back(text.substr(static_cast<size_t>(begin), static_cast<size_t>(i - begin + 1)));
                break;
            }
            int64_t end = i;
            while (i >= 0 && !space(i)) --i;
            parts.push_back(text.substr(static_cast<size_t>(i + 1), static_cast<size_t>(end - i)));
        }
    } else {
        const std::string& sep = separator.str();
        if (sep.empty()) raise("ValueError", "empty separator");
        size_t end = text.size();
        while (maxSplit < 0 || static_cast<int64_t>(parts.size()) < maxSplit) {
            if (end < sep.size()) break;
            size_t found = text.rfind(sep, end - sep.size());
            if (found == std::string::npos) break;
            parts.push_back(text.substr(found + sep.size(), end - found - sep.size()));
            end = found;
        }
        parts.push_back(text.substr(0, end));
    }
    ValueList out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out.push_back(makeStr(*it));
    return out;
}

Value partition(const std::string& text, const std::string& sep, bool fromRight) {
    if (sep.empty()) raise("ValueError", "empty separator");
    size_t at = fromRight ? text.rfind(sep) : text.find(sep);
    if (at == std::string::npos)
        return fromRight ? makeTuple({makeStr(""), makeStr(""), makeStr(text)}) : makeTuple({makeStr(text), makeStr(""), makeStr("")});
    return makeTuple({makeStr(text.substr(0, at)), makeStr(sep), makeStr(text.substr(at + sep.size()))});
}

template <typename Predicate>
Value allChars(const std::string& text, Predicate predicate) {
    return Value(!text.empty() && std::all_of(text.begin(), text.end(), [&](unsigned char c) { return predicate(c) != 0; }));
}

/// islower/isupper: at least one cased character, and none of the other case.
Value casedAs(const std::string& text, bool upper) {
    bool cased = false;
    for (unsigned char c : text) {
        if (upper ? std::islower(c) : std::isupper(c)) return Value(false);
        cased = cased || std::isalpha(c);
    }
    return Value(cased);
}

/// center/ljust/rjust: padded to width with a one-character fill (center puts the odd extra on the right,
/// as CPython does when the padding is odd and the length even).
Value padded(const std::string& text, CallArgs& a, const char* name, int side) {
    int64_t width = argAt(a, 0, name).asInt();
    std::string fill = a.positional.size() > 1 ? a.positional[1].str() : " ";
    if (fill.size() != 1) typeError("The fill character must be exactly one character long");
    int64_t extra = width - static_cast<int64_t>(text.size());
    if (extra <= 0) return makeStr(text);
    int64_t left = side < 0 ? 0 : side > 0 ? extra : extra / 2 + (extra & static_cast<int64_t>(width) & 1);
    return makeStr(std::string(static_cast<size_t>(left), fill[0]) + text + std::string(static_cast<size_t>(extra - left), fill[0]));
}

Value findIn(const std::string& text, CallArgs& a, const char* name, bool fromRight, bool raises) {
    const std::string& sub = argAt(a, 0, name).str();
    size_t at = fromRight ? text.rfind(sub) : text.find(sub);
    if (at == std::string::npos) {
        if (raises) raise("ValueError", "substring not found");
        return Value(int64_t{-1});
    }
    return Value(static_cast<int64_t>(at));
}

std::string mapChars(std::string text, int (*f)(int)) {
    std::transform(text.begin(), text.end(), text.begin(), [f](unsigned char c) { return static_cast<char>(f(c)); });
    return text;
}

int swapCase(int c) { return std::isupper(c) ? std::tolower(c) : std::toupper(c); }

}  // namespace

std::optional<Value> strExtraAttribute(const Value& self, const std::string& name) {
    static const std::unordered_map<std::string, Method> kMethods = {
        {"rsplit", [](Interpreter&, const Value& s, CallArgs& a) {
             std::optional<Value> sep = a.positional.empty() ? a.take("sep") : std::optional<Value>(a.positional[0]);
             std::optional<Value> limit = a.positional.size() > 1 ? std::optional<Value>(a.positional[1]) : a.take("maxsplit");
             return makeList(rsplitText(s.str(), sep.value_or(Value()), limit ? limit->asInt() : -1));
         }},
        {"partition", [](Interpreter&, const Value& s, CallArgs& a) { return partition(s.str(), argAt(a, 0, "partition").str(), false); }},
        {"rpartition", [](Interpreter&, const Value& s, CallArgs& a) { return partition(s.str(), argAt(a, 0, "rpartition").str(), true); }},
        {"zfill", [](Interpreter&, const Value& s, CallArgs& a) {
             std::string text = s.str();
             int64_t width = argAt(a, 0, "zfill").asInt();
             int64_t extra = width - static_cast<int64_t>(text.size());
             if (extra <= 0) return makeStr(text);
             size_t at = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
             text.insert(at, static_cast<size_t>(extra), '0');
             return makeStr(text);
         }},
        {"rfind", [](Interpreter&, const Value& s, CallArgs& a) { return findIn(s.str(), a, "rfind", true, false); }},
        {"index", [](Interpreter&, const Value& s, CallArgs& a) { return findIn(s.str(), a, "index", false, true); }},
        {"rindex", [](Interpreter&, const Value& s, CallArgs& a) { return findIn(s.str(), a, "rindex", true, true); }},
        {"isalpha", [](Interpreter&, const Value& s, CallArgs&) { return allChars(s.str(), ::isalpha); }},
        {"isalnum", [](Interpreter&, const Value& s, CallArgs&) { return allChars(s.str(), ::isalnum); }},
        {"isspace", [](Interpreter&, const Value& s, CallArgs&) { return allChars(s.str(), ::isspace); }},
        {"isdecimal", [](Interpreter&, const Value& s, CallArgs&) { return allChars(s.str(), ::isdigit); }},
        {"isnumeric", [](Interpreter&, const Value& s, CallArgs&) { return allChars(s.str(), ::isdigit); }},
        {"islower", [](Interpreter&, const Value& s, CallArgs&) { return casedAs(s.str(), false); }},
        {"isupper", [](Interpreter&, const Value& s, CallArgs&) { return casedAs(s.str(), true); }},
        {"swapcase", [](Interpreter&, const Value& s, CallArgs&) { return makeStr(mapChars(s.str(), swapCase)); }},
        {"capitalize", [](Interpreter&, const Value& s, CallArgs&) {
             std::string text = mapChars(s.str(), ::tolower);
             if (!text.empty()) text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
             return makeStr(text);
         }},
        {"title", [](Interpreter&, const Value& s, CallArgs&) {
             std::string text = s.str();
             bool previousCased = false;
             for (char& c : text) {
                 auto u = static_cast<unsigned char>(c);
                 c = static_cast<char>(previousCased ? std::tolower(u) : std::toupper(u));
                 previousCased = std::isalpha(u) != 0;
             }
             return makeStr(text);
         }},
        {"center", [](Interpreter&, const Value& s, CallArgs& a) { return padded(s.str(), a, "center", 0); }},
        {"ljust", [](Interpreter&, const Value& s, CallArgs& a) { return padded(s.str(), a, "ljust", -1); }},
        {"rjust", [](Interpreter&, const Value& s, CallArgs& a) { return padded(s.str(), a, "rjust", 1); }},
        {"removeprefix", [](Interpreter&, const Value& s, CallArgs& a) {
             const std::string& text = s.str();
             const std::string& prefix = argAt(a, 0, "removeprefix").str();
             return makeStr(text.starts_with(prefix) ? text.substr(prefix.size()) : text);
         }},
        {"removesuffix", [](Interpreter&, const Value& s, CallArgs& a) {
             const std::string& text = s.str();
             const std::string& suffix = argAt(a, 0, "removesuffix").str();
             return makeStr(!suffix.empty() && text.ends_with(suffix) ? text.substr(0, text.size() - suffix.size()) : text);
         }},
    };
    auto it = kMethods.find(name);
    if (it == kMethods.end()) return std::nullopt;
    Method method = it->second;
    return makeNative(name, [self, method](Interpreter& vm, CallArgs& args) { return method(vm, self, args); });
}

std::optional<Value> intAttribute(const Value& self, const std::string& name) {
    const int64_t v = self.asInt();
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    if (name == "bit_length")
        return makeNative(name, [magnitude](Interpreter&, CallArgs&) { return Value(static_cast<int64_t>(std::bit_width(magnitude))); });
    if (name == "bit_count")
        return makeNative(name, [magnitude](Interpreter&, CallArgs&) { return Value(static_cast<int64_t>(std::popcount(magnitude))); });
    if (name == "as_integer_ratio") return makeNative(name, [v](Interpreter&, CallArgs&) { return makeTuple({Value(v), Value(int64_t{1})}); });
    if (name == "conjugate") return makeNative(name, [v](Interpreter&, CallArgs&) { return Value(v); });
    if (name == "real" || name == "numerator") return Value(v);
    if (name == "imag") return Value(int64_t{0});
    if (name == "denominator") return Value(int64_t{1});
    return std::nullopt;
}

/// CPython's float.hex: a normalized hexadecimal mantissa of 13 digits and a binary exponent (0x1.4000000000000p+1).
static std::string floatHex(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    if (x == 0) return std::signbit(x) ? "-0x0.0p+0" : "0x0.0p+0";
    int e = 0;
    double m = std::frexp(std::fabs(x), &e);
    int shift = 1 - std::max(-1021 - e, 0);  // DBL_MIN_EXP: subnormals keep a leading 0
    m = std::ldexp(m, shift);
    e -= shift;
    const char* digits = "0123456789abcdef";
    std::string text(1, digits[static_cast<int>(m)]);
    m -= static_cast<int>(m);
    text += '.';
    for (int i = 0; i < 13; ++i) {
        m *= 16.0;
        text += digits[static_cast<int>(m)];
        m -= static_cast<int>(m);
    }
    return fmt::format("{}0x{}p{:+d}", x < 0 ? "-" : "", text, e);
}

std::optional<Value> floatAttribute(const Value& self, const std::string& name) {
    const double v = self.asFloat();
    if (name == "is_integer") return makeNative(name, [v](Interpreter&, CallArgs&) { return Value(std::isfinite(v) && v == std::floor(v)); });
    if (name == "conjugate") return makeNative(name, [v](Interpreter&, CallArgs&) { return Value(v); });
    if (name == "hex") return makeNative(name, [v](Interpreter&, CallArgs&) { return makeStr(floatHex(v)); });
    if (name == "as_integer_ratio")
        return makeNative(name, [v](Interpreter&, CallArgs&) {
            if (std::isinf(v)) raise("OverflowError", "cannot convert Infinity to integer ratio");
            if (std::isnan(v)) raise("ValueError", "cannot convert NaN to integer ratio");
            // The exact value: an integer mantissa of 53 bits times a power of two, reduced (CPython's algorithm).
            int e = 0;
            double m = std::frexp(v, &e);
            for (int i = 0; i < 300 && m != std::floor(m); ++i) {
                m *= 2.0;
                --e;
            }
            if (std::fabs(m) >= 9.2e18 || e >= 63 - static_cast<int>(std::bit_width(static_cast<uint64_t>(std::fabs(m)))) || e < -62)
                raise("OverflowError", "as_integer_ratio: the ratio does not fit the cwb subset's 64-bit integers");
            auto numerator = static_cast<int64_t>(m);
            if (e >= 0) return makeTuple({Value(numerator << e), Value(int64_t{1})});
            return makeTuple({Value(numerator), Value(int64_t{1} << -e)});
        });
    if (name == "real") return Value(v);
    if (name == "imag") return Value(0.0);
    return std::nullopt;
}

void installTextBuiltins(Namespace& builtins) {
    // ord/chr over code points, the text held as UTF-8.
    builtins["ord"] = makeNative("ord", [](Interpreter& vm, CallArgs& a) {
        const Value& v = argAt(a, 0, "ord");
        if (!v.is(Kind::Str)) typeError(fmt::format("ord() expected string of length 1, but {} found", vm.classOf(v)->name));
        const std::string& text = v.str();
        auto lead = text.empty() ? 0u : static_cast<unsigned char>(text[0]);
        size_t width = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        if (text.empty() || text.size() != width)
            typeError(fmt::format("ord() expected a character, but string of length {} found", text.empty() ? 0 : text.size()));
        int64_t code = width == 1 ? lead : lead & (0x7F >> width);
        for (size_t i = 1; i < width; ++i) code = (code << 6) | (static_cast<unsigned char>(text[i]) & 0x3F);
        return Value(code);
    });
    builtins["chr"] = makeNative("chr", [](Interpreter&, CallArgs& a) {
        int64_t code = argAt(a, 0, "chr").asInt();
        if (code < 0 || code > 0x10FFFF) raise("ValueError", "chr() arg not in range(0x110000)");
        std::string text;
        auto c = static_cast<uint32_t>(code);
        if (c < 0x80) {
            text += static_cast<char>(c);
        } else if (c < 0x800) {
            text += static_cast<char>(0xC0 | (c >> 6));
            text += static_cast<char>(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            text += static_cast<char>(0xE0 | (c >> 12));
            text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            text += static_cast<char>(0x80 | (c & 0x3F));
        } else {
            text += static_cast<char>(0xF0 | (c >> 18));
            text += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
            text += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
            text += static_cast<char>(0x80 | (c & 0x3F));
        }
        return makeStr(text);
    });
}

}  // namespace eng::vm
