// View names for the command line and the config file (see view.h).
#include "views/view.h"

#include <array>
#include <utility>

namespace app {
namespace {

constexpr std::array<std::pair<ViewId, const char*>, 11> kViewNames = {{
    {ViewId::Sites, "sites"},
    {ViewId::Recompiles, "recompiles"},
    {ViewId::Graph, "graph"},
    {ViewId::Fusion, "fusion"},
    {ViewId::Code, "code"},
    {ViewId::Breaks, "breaks"},
    {ViewId::Metrics, "metrics"},
    {ViewId::Timeline, "timeline"},
    {ViewId::Shapes, "shapes"},
    {ViewId::Diff, "diff"},
    {ViewId::Provenance, "provenance"},
}};

}  // namespace

const char* viewName(ViewId id) {
    for (const auto& [view, name] : kViewNames)
        if (view == id) return name;
    return "sites";
}

std::string viewNameList() {
    std::string list;
    for (size_t i = 0; i < kViewNames.size(); ++i)
        list += std::string(i == 0 ? "" : i + 1 == kViewNames.size() ? " or " : ", ") + kViewNames[i].second;
    return list;
}

std::optional<ViewId> viewFromName(std::string_view name) {
    for (const auto& [view, viewText] : kViewNames)
        if (name == viewText) return view;
    return std::nullopt;
}

}  // namespace app
