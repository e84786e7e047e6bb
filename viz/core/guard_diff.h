// What changed between two cache entries' guards: the recompile stepper highlights it, because the guard
// that changed is usually the answer to "why did this recompile".
#pragma once

#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace viz {

enum class GuardChangeKind { Unchanged, Added, Removed, Changed };
const char* guardChangeName(GuardChangeKind kind);

struct GuardChange {
    GuardChangeKind kind = GuardChangeKind::Unchanged;
    const traces::Guard* before = nullptr;  ///< null for Added
    const traces::Guard* after = nullptr;   ///< null for Removed
};

struct GuardDiffCounts {
    int added = 0;
    int removed = 0;
    int changed = 0;
    bool empty() const { return added == 0 && removed == 0 && changed == 0; }
};

/// Matches guards by (source, kind), in order within each pair: equal text first, then the rest pairwise as
/// Changed; what is left over is Added or Removed. The result follows `after`'s order, each removed guard
/// placed right after the guard that preceded it in `before`.
std::vector<GuardChange> diffGuards(const std::vector<const traces::Guard*>& before,
                                    const std::vector<const traces::Guard*>& after);

GuardDiffCounts countChanges(const std::vector<GuardChange>& changes);

/// Where two guard texts differ: they share `prefix` leading and `suffix` trailing bytes. A changed tensor guard
/// is a long line that differs in a few characters (size=[8, 16] -> size=[8, None]); views show just that.
struct TextDifference {
    size_t prefix = 0;
    size_t suffix = 0;
    /// Where a readable excerpt starts: a little before the difference, at a word boundary.
    size_t excerptStart = 0;
};
TextDifference differingSpan(std::string_view before, std::string_view after);

}  // namespace viz
