// Building a combo kernel (kernel_ir.h): the union of its parts' buffers and symbols, and one outer range that is
// the sum of the parts' flattened ranges.
#include <algorithm>

#include "inductor/ir/kernel_ir.h"

namespace eng::inductor {

Kernel makeComboKernel(const std::string& name, std::vector<Kernel> parts, const std::vector<std::vector<int>>& bufferKeys) {
    Kernel combo;
    combo.name = name;
    std::map<int, int> bufferOfKey;
    Index total = indexConstant(0);
    for (size_t p = 0; p < parts.size(); ++p) {
        ComboPart part{std::move(parts[p]), {}};
        for (size_t j = 0; j < part.kernel.buffers.size(); ++j) {
            const KernelBuffer& b = part.kernel.buffers[j];
            auto [it, added] = bufferOfKey.try_emplace(bufferKeys.at(p).at(j), static_cast<int>(combo.buffers.size()));
            if (added) combo.buffers.push_back(KernelBuffer{b.name, b.dtype, false, false});
            KernelBuffer& merged = combo.buffers[static_cast<size_t>(it->second)];
            merged.read = merged.read || b.read;
            merged.written = merged.written || b.written;
            part.buffers.push_back(it->second);
        }
        for (const std::string& symbol : part.kernel.symbols)
            if (std::find(combo.symbols.begin(), combo.symbols.end(), symbol) == combo.symbols.end()) combo.symbols.push_back(symbol);
        total = total + product(part.kernel.outerRanges);
        combo.parts.push_back(std::move(part));
    }
    combo.outerRanges = {total};
    return combo;
}

}  // namespace eng::inductor
