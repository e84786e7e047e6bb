// Case-insensitive search (see text_match.h).
#include "core/text_match.h"

#include <algorithm>

namespace viz {
namespace {

char lowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

size_t findIgnoreCase(std::string_view haystack, std::string_view needle, size_t from) {
    if (from > haystack.size()) return std::string_view::npos;
    auto it = std::search(haystack.begin() + static_cast<std::ptrdiff_t>(from), haystack.end(), needle.begin(),
                          needle.end(), [](char a, char b) { return lowerAscii(a) == lowerAscii(b); });
    if (it == haystack.end() && !needle.empty()) return std::string_view::npos;
    return static_cast<size_t>(it - haystack.begin());
}

}  // namespace viz
