// Node search (see graph_search.h).
#include "graph/graph_search.h"

#include <algorithm>

namespace viz {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool containsNoCase(std::string_view haystack, std::string_view needle) {
    if (needle.empty() || needle.size() > haystack.size()) return false;
    auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                          [](char a, char b) { return lower(a) == lower(b); });
    return it != haystack.end();
}

std::vector<int> searchNodes(const GraphModel& model, std::string_view query) {
    std::vector<int> exact;
    std::vector<int> partial;
    if (query.empty()) return exact;
    for (const GraphModelNode& node : model.nodes) {
        bool sameName = node.name.size() == query.size() && containsNoCase(node.name, query);
        if (sameName) exact.push_back(node.index);
        else if (containsNoCase(node.name, query) || containsNoCase(node.shortTarget, query) ||
                 containsNoCase(node.tensorText, query) || containsNoCase(node.sourceText, query))
            partial.push_back(node.index);
    }
    exact.insert(exact.end(), partial.begin(), partial.end());
    return exact;
}

}  // namespace viz
