// Case-insensitive text search shared by every filter box and the code view's search.
#pragma once

#include <cstddef>
#include <string_view>

namespace viz {

/// Position of the first case-insensitive (ASCII) occurrence of `needle` at or after `from`, or npos.
size_t findIgnoreCase(std::string_view haystack, std::string_view needle, size_t from = 0);

/// True for an empty needle, so an empty filter box keeps everything.
inline bool containsIgnoreCase(std::string_view haystack, std::string_view needle) {
    return needle.empty() || findIgnoreCase(haystack, needle) != std::string_view::npos;
}

}  // namespace viz
