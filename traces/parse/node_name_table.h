// The FX graph parser's table of node names: a name to the index of the node that last took it. Open addressing
// over node indexes; a name is compared with its node's own name, so the table keeps no copy of any name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

class NodeNameTable {
public:
    /// Names are those of `nodes`, which must outlive the table (the vector may grow).
    explicit NodeNameTable(const std::vector<GraphNode>& nodes) : nodes_(nodes) {}

    std::optional<size_t> find(std::string_view name) const {
        if (slots_.empty()) return std::nullopt;
        const size_t mask = slots_.size() - 1;
        for (size_t at = hashOf(name) & mask;; at = (at + 1) & mask) {
            uint32_t slot = slots_[at];
            if (slot == kEmpty) return std::nullopt;
            if (slot != kErased && nodes_[slot - 1].name == name) return slot - 1;
        }
    }
    bool contains(std::string_view name) const { return find(name).has_value(); }

    /// `nodes[index]` now holds the name `name` (a name taken again moves to the newer node).
    void assign(std::string_view name, size_t index) {
        if ((used_ + 1) * 2 > slots_.size()) rebuild(slots_.empty() ? 64 : slots_.size() * 2);
        const size_t mask = slots_.size() - 1;
        size_t at = hashOf(name) & mask;
        for (;; at = (at + 1) & mask) {
            uint32_t slot = slots_[at];
            if (slot == kEmpty) break;
            if (slot != kErased && nodes_[slot - 1].name == name) {
                slots_[at] = static_cast<uint32_t>(index + 1);
                return;
            }
        }
        // Not present: an erased slot on the way could be reused, but erasing is rare (renames only).
        slots_[at] = static_cast<uint32_t>(index + 1);
        ++used_;
    }

    /// Forgets `name`, while its node still holds it.
    void erase(std::string_view name) {
        if (slots_.empty()) return;
        const size_t mask = slots_.size() - 1;
        for (size_t at = hashOf(name) & mask;; at = (at + 1) & mask) {
            uint32_t slot = slots_[at];
            if (slot == kEmpty) return;
            if (slot != kErased && nodes_[slot - 1].name == name) {
                slots_[at] = kErased;  // stays counted in used_: probes go on past it
                return;
            }
        }
    }

    /// Every node's name, from the first node on (a later node with the same name wins).
    void rebuildFromNodes() {
        slots_.clear();
        used_ = 0;
        for (size_t i = 0; i < nodes_.size(); ++i) assign(nodes_[i].name, i);
    }

private:
    static constexpr uint32_t kEmpty = 0;  // slots hold index + 1
    static constexpr uint32_t kErased = UINT32_MAX;

    static size_t hashOf(std::string_view name) {
        uint64_t hash = 0xcbf29ce484222325u;  // FNV-1a: names are short identifiers
        for (char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3u;
        return static_cast<size_t>(hash ^ (hash >> 29));
    }

    void rebuild(size_t size) {
        std::vector<uint32_t> old;
        old.swap(slots_);
        slots_.assign(size, kEmpty);
        used_ = 0;
        for (uint32_t slot : old)
            if (slot != kEmpty && slot != kErased) assign(nodes_[slot - 1].name, slot - 1);
    }

    const std::vector<GraphNode>& nodes_;
    std::vector<uint32_t> slots_;
    size_t used_ = 0;  ///< slots not empty, erased ones included
};

}  // namespace traces
