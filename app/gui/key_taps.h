// Keeps quick key taps: Dear ImGui 1.86's GLFW backend keeps only whether a key is down at each new frame, so a
// key pressed and released between two frames (a fast tap during a slow frame, or xdotool's `key`) went unseen.
#pragma once

struct GLFWwindow;

namespace app::key_taps {

/// Puts a filter in front of the key callback ImGui installed on `window` (call after ImGui's GLFW init).
void install(GLFWwindow* window);
/// Call once a frame is drawn: the releases held back go to ImGui now, so that the frame just drawn saw those keys
/// (and Ctrl or Shift with them) down and the next one sees them up.
void releaseHeldKeys();

}  // namespace app::key_taps
