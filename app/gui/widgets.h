// Small ImGui helpers the views share: compile-id chips in their status colour, filter boxes that Ctrl+F
// focuses, keyboard shortcut tests that respect text input, and link-style buttons.
#pragma once

#include <imgui.h>

#include <string>

#include "core/compile_state.h"

namespace app::widgets {

/// A rounded chip "[0/1]" filled with the status colour; `selected` draws a white outline. True on click.
bool compileChip(const char* label, viz::CompileState state, bool selected);

/// A toggle chip "ok 5" for a status filter; flips `enabled` on click and returns true then.
bool stateToggle(viz::CompileState state, int count, bool& enabled);

/// A text box with a hint, `width` logical pixels wide (scaled on HiDPI screens); Ctrl+F focuses it while its
/// view is drawn. True when the text changed.
bool filterBox(const char* id, std::string& text, const char* hint, float width);

/// True when the key went down this frame and no text field has the keyboard.
bool keyPressed(ImGuiKey key);
/// Ctrl + a letter ('F', 'O', ...), also while typing (so Ctrl+F works from any field).
bool ctrlPressed(char letter);

/// A letter key ('G') pressed this frame, without Ctrl or Alt and while no text field has the keyboard.
bool letterPressed(char letter);

/// Text that looks like a link and returns true on click.
bool linkButton(const char* label);
/// A link with a shortcut key, shown before it ("[G] Graph: ..."): true on click, or on the letter when `keys`
/// is on (its pane has the keyboard).
bool linkButton(const char* label, char shortcut, bool keys);

/// "(?)" that shows `text` on hover.
void helpMarker(const char* text);

/// A child window that only lays out (no border, no background of its own): the area behind it is already
/// painted, and on a software renderer each extra layer of pixels costs milliseconds a frame. End with EndChild.
bool beginLayoutChild(const char* id, ImVec2 size);

/// Seconds as "74.9 s", "1.48 s", "55 ms", "0.4 ms".
std::string formatSeconds(double seconds);

}  // namespace app::widgets
