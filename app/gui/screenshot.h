// Writes what the current OpenGL framebuffer holds to a PNG (for `cwb open --screenshot`).
#pragma once

#include <string>

namespace app {

/// Reads the back buffer (call after rendering, before swapping) and writes it top-down as PNG. False on error.
bool writeScreenshot(const std::string& path, int width, int height, std::string& error);

}  // namespace app
