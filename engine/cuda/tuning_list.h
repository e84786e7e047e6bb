// One reader for the `key=value,key=value` tuning strings of the CUDA layers (CWB_CUDA_TUNING for generated kernels,
// CWB_FLASH_TUNING for the attention kernel): empty items are skipped and a bare key means key=1.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace eng::cuda {

/// Calls apply(key, value) for each item of `spec` in order; apply returns false for a key it does not know, and the
/// first such key is returned (nullopt when every key was known), so each caller reports it in its own error kind.
template <class Apply>
std::optional<std::string> forEachTuningItem(std::string_view spec, Apply&& apply) {
    for (size_t start = 0; start < spec.size();) {
        const size_t end = std::min(spec.find(',', start), spec.size());
        const std::string item(spec.substr(start, end - start));
        start = end + 1;
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const int value = eq == std::string::npos ? 1 : std::atoi(item.c_str() + eq + 1);
        if (!apply(key, value)) return key;
    }
    return std::nullopt;
}

}  // namespace eng::cuda
