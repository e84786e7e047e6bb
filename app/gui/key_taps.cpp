// Holds back key releases until ImGui has seen the keys pressed before them (see key_taps.h).
#include "gui/key_taps.h"

#include <GLFW/glfw3.h>

#include <vector>

namespace app::key_taps {
namespace {

struct HeldRelease {
    GLFWwindow* window;
    int key;
    int scancode;
    int mods;
};

GLFWkeyfun imguiKeyCallback = nullptr;
bool pressedSinceFrame = false;
std::vector<HeldRelease> heldReleases;

void onKey(GLFWwindow* window, int key, int scancode, int action, int mods) {
    // Once a key went down since the last frame, every release waits for the next: a chord tapped between two
    // frames (Ctrl down, A down, Ctrl up, A up) must reach the frame whole, modifier included.
    if (action == GLFW_PRESS) pressedSinceFrame = true;
    if (action == GLFW_RELEASE && pressedSinceFrame) {
        heldReleases.push_back({window, key, scancode, mods});
        return;
    }
    if (imguiKeyCallback) imguiKeyCallback(window, key, scancode, action, mods);
}

}  // namespace

void install(GLFWwindow* window) { imguiKeyCallback = glfwSetKeyCallback(window, onKey); }

void releaseHeldKeys() {
    pressedSinceFrame = false;
    std::vector<HeldRelease> releases;
    releases.swap(heldReleases);
    for (const HeldRelease& release : releases)
        if (imguiKeyCallback) imguiKeyCallback(release.window, release.key, release.scancode, GLFW_RELEASE, release.mods);
}

}  // namespace app::key_taps
