// Guard matching for the recompile stepper (see guard_diff.h for the rules).
#include "core/guard_diff.h"

#include <algorithm>
#include <map>
#include <utility>

namespace viz {
namespace {

using GuardKey = std::pair<std::string, std::string>;

GuardKey keyOf(const traces::Guard& guard) { return {guard.source, guard.kind}; }

}  // namespace

const char* guardChangeName(GuardChangeKind kind) {
    switch (kind) {
        case GuardChangeKind::Unchanged: return "unchanged";
        case GuardChangeKind::Added: return "added";
        case GuardChangeKind::Removed: return "removed";
        case GuardChangeKind::Changed: return "changed";
    }
    return "unchanged";
}

std::vector<GuardChange> diffGuards(const std::vector<const traces::Guard*>& before,
                                    const std::vector<const traces::Guard*>& after) {
    constexpr int kUnmatched = -1;
    std::vector<int> partnerOfAfter(after.size(), kUnmatched);
    std::vector<int> partnerOfBefore(before.size(), kUnmatched);
    std::map<GuardKey, std::vector<int>> beforeByKey;
    for (size_t i = 0; i < before.size(); ++i) beforeByKey[keyOf(*before[i])].push_back(static_cast<int>(i));

    // Exact text first, so that one changed guard among several of the same kind pairs with the right one.
    for (size_t a = 0; a < after.size(); ++a) {
        for (int b : beforeByKey[keyOf(*after[a])]) {
            if (partnerOfBefore[static_cast<size_t>(b)] != kUnmatched || before[static_cast<size_t>(b)]->text != after[a]->text)
                continue;
            partnerOfBefore[static_cast<size_t>(b)] = static_cast<int>(a);
            partnerOfAfter[a] = b;
            break;
        }
    }
    for (size_t a = 0; a < after.size(); ++a) {
        if (partnerOfAfter[a] != kUnmatched) continue;
        for (int b : beforeByKey[keyOf(*after[a])]) {
            if (partnerOfBefore[static_cast<size_t>(b)] != kUnmatched) continue;
            partnerOfBefore[static_cast<size_t>(b)] = static_cast<int>(a);
            partnerOfAfter[a] = b;
            break;
        }
    }

    // Removed guards go after the output entry of their nearest matched predecessor in `before`.
    std::vector<std::vector<int>> removedAfter(after.size() + 1);  // slot 0: before everything
    int anchor = 0;
    for (size_t b = 0; b < before.size(); ++b) {
        if (partnerOfBefore[b] != kUnmatched) {
            anchor = partnerOfBefore[b] + 1;
            continue;
        }
        removedAfter[static_cast<size_t>(anchor)].push_back(static_cast<int>(b));
    }

    std::vector<GuardChange> changes;
    changes.reserve(before.size() + after.size());
    auto emitRemoved = [&](size_t slot) {
        for (int b : removedAfter[slot]) changes.push_back({GuardChangeKind::Removed, before[static_cast<size_t>(b)], nullptr});
    };
    emitRemoved(0);
    for (size_t a = 0; a < after.size(); ++a) {
        int b = partnerOfAfter[a];
        if (b == kUnmatched) {
            changes.push_back({GuardChangeKind::Added, nullptr, after[a]});
        } else {
            const traces::Guard* old = before[static_cast<size_t>(b)];
            auto kind = old->text == after[a]->text ? GuardChangeKind::Unchanged : GuardChangeKind::Changed;
            changes.push_back({kind, old, after[a]});
        }
        emitRemoved(a + 1);
    }
    return changes;
}

GuardDiffCounts countChanges(const std::vector<GuardChange>& changes) {
    GuardDiffCounts counts;
    for (const GuardChange& change : changes) {
        if (change.kind == GuardChangeKind::Added) ++counts.added;
        if (change.kind == GuardChangeKind::Removed) ++counts.removed;
        if (change.kind == GuardChangeKind::Changed) ++counts.changed;
    }
    return counts;
}

}  // namespace viz

namespace viz {

TextDifference differingSpan(std::string_view before, std::string_view after) {
    constexpr size_t kContext = 16;
    TextDifference difference;
    size_t shorter = std::min(before.size(), after.size());
    while (difference.prefix < shorter && before[difference.prefix] == after[difference.prefix]) ++difference.prefix;
    while (difference.suffix < shorter - difference.prefix &&
           before[before.size() - 1 - difference.suffix] == after[after.size() - 1 - difference.suffix])
        ++difference.suffix;
    if (difference.prefix > kContext) {
        size_t start = difference.prefix - kContext;
        size_t boundary = after.find_first_of(" ,(", start);
        size_t excerpt = boundary != std::string_view::npos && boundary < difference.prefix ? boundary + 1 : start;
        while (excerpt < difference.prefix && after[excerpt] == ' ') ++excerpt;
        difference.excerptStart = excerpt;
    }
    return difference;
}

}  // namespace viz
