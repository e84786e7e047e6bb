// Builds the breaks view's groups from the summary's de-duplicated break reasons (see break_groups.h).
#include "core/break_groups.h"

#include "core/text_match.h"

namespace viz {
namespace {

std::string trimmed(std::string_view text) {
    size_t begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string_view::npos) return {};
    size_t end = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(begin, end - begin + 1));
}

}  // namespace

std::vector<BreakGroup> groupBreaks(const traces::SessionSummary& summary) {
    std::vector<BreakGroup> groups;
    groups.reserve(summary.breakReasons.size());
    for (const traces::BreakReasonSummary& reason : summary.breakReasons) {
        BreakGroup group;
        group.reason = reason;
        size_t newline = reason.reason.find('\n');
        std::string firstLine = trimmed(reason.reason.substr(0, newline));
        group.title = reason.breakType.empty() ? firstLine : reason.breakType;
        group.explanation = trimmed(reason.reason);
        if (!reason.userFile.empty()) group.location = reason.userFile + ":" + std::to_string(reason.userLine);
        group.sourceLine = trimmed(reason.userSource);
        groups.push_back(std::move(group));
    }
    return groups;
}

std::vector<size_t> filterBreaks(const std::vector<BreakGroup>& groups, std::string_view text) {
    std::vector<size_t> shown;
    for (size_t i = 0; i < groups.size(); ++i) {
        const BreakGroup& group = groups[i];
        bool match = containsIgnoreCase(group.title, text) || containsIgnoreCase(group.reason.reason, text) ||
                     containsIgnoreCase(group.location, text) || containsIgnoreCase(group.sourceLine, text);
        for (const traces::CompileRef& compile : group.reason.compiles)
            match = match || containsIgnoreCase(compile.display, text);
        if (match) shown.push_back(i);
    }
    return shown;
}

}  // namespace viz
