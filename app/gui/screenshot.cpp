// Framebuffer to PNG through stb_image_write, which Debian's libstb already compiles (see screenshot.h).
#include "gui/screenshot.h"

#include <GL/gl.h>
#include <stb_image_write.h>

#include <vector>

namespace app {

bool writeScreenshot(const std::string& path, int width, int height, std::string& error) {
    if (width <= 0 || height <= 0) {
        error = "the window has no pixels to capture";
        return false;
    }
    constexpr int kChannels = 3;
    std::vector<unsigned char> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * kChannels);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
    if (glGetError() != GL_NO_ERROR) {
        error = "glReadPixels failed";
        return false;
    }
    // OpenGL's rows start at the bottom; PNG's at the top.
    stbi_flip_vertically_on_write(1);
    if (!stbi_write_png(path.c_str(), width, height, kChannels, pixels.data(), width * kChannels)) {
        error = path + ": cannot write the PNG";
        return false;
    }
    return true;
}

}  // namespace app
