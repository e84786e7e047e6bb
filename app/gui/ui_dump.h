// A plain-text account of what the window shows on its last frame (`cwb open --dump-ui`): windows, the active
// view, and the rows each view drew. Tests assert on it; users can paste it into bug reports.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace app {

class UiDump {
public:
    /// One line "kind: text"; kinds used: window, view, panel, row, compile, step, guard, code, break, bar, ...
    void add(std::string_view kind, std::string_view text);
    /// "item: LABEL at X Y": where the last ImGui item's centre is, in window pixels, so that tests driving the
    /// window with real input events (tests/gui/) know where to click.
    void addItem(std::string_view label);
    /// Adds every ImGui window that is visible this frame (call between NewFrame and Render).
    void addVisibleWindows();
    const std::vector<std::string>& lines() const { return lines_; }
    std::string text() const;

private:
    std::vector<std::string> lines_;
};

}  // namespace app
