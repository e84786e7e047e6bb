// The workbench's process-level loop: GLFW window with an OpenGL 3.3 core context, Dear ImGui, fonts and HiDPI
// scale, the per-user config file, drag and drop, the scripted mode that renders N frames and writes a PNG, and
// snapshots of a live window on SIGUSR1.
#include "gui/gui_main.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <fmt/core.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "gui/fonts.h"
#include "gui/key_taps.h"
#include "gui/screenshot.h"
#include "gui/theme.h"
#include "gui/ui_dump.h"
#include "gui/user_config.h"
#include "gui/workbench.h"
#include "views/graph_views.h"

namespace app {
namespace {

constexpr int kDefaultScriptedFrames = 3;
constexpr double kIdleWakeSeconds = 0.25;
constexpr int kFramesAfterInput = 6;
constexpr auto kScriptedLoadTimeout = std::chrono::minutes(5);
constexpr auto kScriptedLayoutTimeout = std::chrono::milliseconds(120000);

void onGlfwError(int code, const char* description) { fmt::print(stderr, "cwb: GLFW error {}: {}\n", code, description); }

volatile std::sig_atomic_t snapshotRequested = 0;
void onSnapshotSignal(int) { snapshotRequested = 1; }

/// Set when the window moves to a monitor of another scale (Wayland, Windows, macOS: X11 has one scale, Xft.dpi,
/// read at start); the fonts are rasterised again at the new size before the next frame.
bool contentScaleChanged = false;
void onContentScale(GLFWwindow*, float, float) { contentScaleChanged = true; }

void onDrop(GLFWwindow* window, int count, const char** paths) {
    auto* workbench = static_cast<Workbench*>(glfwGetWindowUserPointer(window));
    std::vector<std::string> dropped(paths, paths + count);
    // A drop comes with the pointer where it was let go: that picks the pane it lands in.
    double x = 0;
    double y = 0;
    glfwGetCursorPos(window, &x, &y);
    workbench->queueDrop(std::move(dropped), static_cast<float>(x), static_cast<float>(y));
}

float contentScale(GLFWwindow* window) {
    float x = 1.0f;
    float y = 1.0f;
    glfwGetWindowContentScale(window, &x, &y);
    return std::max(1.0f, std::max(x, y));
}

/// The scale before there is a window (to size it): the primary monitor's (on X11 both come from Xft.dpi).
float monitorScale() {
    GLFWmonitor* monitor = glfwGetPrimaryMonitor();
    if (!monitor) return 1.0f;
    float x = 1.0f;
    float y = 1.0f;
    glfwGetMonitorContentScale(monitor, &x, &y);
    return std::max(1.0f, std::max(x, y));
}

/// Rasterises the fonts at `scale` (crisp text, not a stretched texture) and scales the style's sizes.
void applyScale(float scale, bool rendererStarted) {
    ImGui::GetIO().Fonts->Clear();
    loadFonts(scale);
    theme::applyStyle(scale);
    if (rendererStarted) {
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
    }
}

/// Writes `text` so that a reader polling for `path` never sees it half-written.
bool writeFileAtomically(const std::string& path, const std::string& text) {
    std::string partial = path + ".partial";
    {
        std::ofstream out(partial, std::ios::binary);
        out << text;
        if (!out) return false;
    }
    std::error_code error;
    std::filesystem::rename(partial, path, error);
    return !error;
}

/// A live window's snapshot (--snapshot-on-sigusr1): the frame as PREFIX.png, then what it shows as PREFIX.txt.
void writeSnapshot(GLFWwindow* window, const std::string& prefix, const std::string& dumpText) {
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    std::string error;
    std::string partialPng = prefix + ".png.partial";
    if (writeScreenshot(partialPng, width, height, error)) {
        std::error_code renameError;
        std::filesystem::rename(partialPng, prefix + ".png", renameError);
    } else {
        fmt::print(stderr, "cwb: {}\n", error);
    }
    if (!writeFileAtomically(prefix + ".txt", dumpText)) fmt::print(stderr, "cwb: cannot write {}.txt\n", prefix);
}

/// Owns GLFW, the window and the ImGui context, so every exit path tears them down in order.
class WindowSession {
public:
    bool init(std::string& error) {
        glfwSetErrorCallback(onGlfwError);
        if (!glfwInit()) {
            error = "cannot initialise GLFW (no display? run under xvfb-run for headless use)";
            return false;
        }
        glfwInitialised_ = true;
        return true;
    }

    /// `width` x `height` in screen pixels, made to fit the primary monitor's work area.
    bool createWindow(int width, int height, std::string& error) {
        if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
            int x = 0;
            int y = 0;
            int areaWidth = 0;
            int areaHeight = 0;
            glfwGetMonitorWorkarea(monitor, &x, &y, &areaWidth, &areaHeight);
            if (areaWidth > 0 && areaHeight > 0) {
                width = std::min(width, areaWidth);
                height = std::min(height, areaHeight);
            }
        }
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        window_ = glfwCreateWindow(width, height, "cwb - Compile Workbench", nullptr, nullptr);
        if (!window_) {
            error = "cannot create an OpenGL 3.3 window";
            return false;
        }
        glfwMakeContextCurrent(window_);
        glfwSwapInterval(1);
        return true;
    }

    bool startImGui() {
        ImGui_ImplGlfw_InitForOpenGL(window_, true);
        key_taps::install(window_);
        imguiBackends_ = ImGui_ImplOpenGL3_Init("#version 330 core");
        return imguiBackends_;
    }

    ~WindowSession() {
        if (imguiBackends_) {
            ImGui_ImplOpenGL3_Shutdown();
            ImGui_ImplGlfw_Shutdown();
        }
        if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
        if (window_) glfwDestroyWindow(window_);
        if (glfwInitialised_) glfwTerminate();
    }

    GLFWwindow* window() const { return window_; }

private:
    bool glfwInitialised_ = false;
    bool imguiBackends_ = false;
    GLFWwindow* window_ = nullptr;
};

void renderFrame(GLFWwindow* window) {
    ImGui::Render();
    int width = 0;
    int height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    glViewport(0, 0, width, height);
    // The main window and its layout children draw no background of their own (on llvmpipe each full-window
    // layer of pixels costs milliseconds a frame): the frame is cleared to the colour the panels have.
    const ImVec4& background = ImGui::GetStyle().Colors[ImGuiCol_ChildBg];
    glClearColor(background.x, background.y, background.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace

int runWorkbench(const WorkbenchOptions& options) {
    bool scripted = options.frames.has_value() || !options.screenshotPath.empty();
    int framesToRender = options.frames.value_or(kDefaultScriptedFrames);
    // Scripted runs (screenshots for tests and bug reports) must look the same for everyone: no user config.
    bool persistent = !scripted;
    // Before the window exists: whoever sends the signal can take the window's appearance as the go-ahead.
    if (!options.snapshotOnSignalPrefix.empty()) std::signal(SIGUSR1, onSnapshotSignal);

    // Declared before the window session: ImGui reads both while it shuts down (it saves the .ini file).
    UserConfig config;
    std::string configPath = persistent ? UserConfig::defaultPath(true) : std::string();
    IMGUI_CHECKVERSION();
    WindowSession session;
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    if (persistent) {
        registerConfigHandler(config);
        loadConfigFile(configPath);
    }
    // ImGui keeps the pointer; configPath outlives the context (see above).
    io.IniFilename = configPath.empty() ? nullptr : configPath.c_str();

    std::string error;
    if (!session.init(error)) {
        fmt::print(stderr, "cwb: {}\n", error);
        return 1;
    }
    // The config keeps the window size in logical pixels: the same window on a normal and a HiDPI screen.
    float windowScale = options.scale.value_or(monitorScale());
    if (!session.createWindow(static_cast<int>(static_cast<float>(config.windowWidth) * windowScale),
                              static_cast<int>(static_cast<float>(config.windowHeight) * windowScale), error)) {
        fmt::print(stderr, "cwb: {}\n", error);
        return 1;
    }
    float scale = options.scale.value_or(contentScale(session.window()));
    applyScale(scale, false);
    if (!options.scale) glfwSetWindowContentScaleCallback(session.window(), onContentScale);
    if (!session.startImGui()) {
        fmt::print(stderr, "cwb: cannot initialise the OpenGL 3 renderer\n");
        return 1;
    }

    Workbench workbench(config, persistent);
    workbench.setFollow(options.follow);
    glfwSetWindowUserPointer(session.window(), &workbench);
    glfwSetDropCallback(session.window(), onDrop);
    for (size_t i = 0; i < options.paths.size(); ++i)
        workbench.openInPane(options.paths[i], i == 1 && !scripted ? 1 : 0);
    if (options.view) workbench.showView(*options.view);

    auto started = std::chrono::steady_clock::now();
    bool selectionApplied = options.selectCompile.empty() && options.selectKernel.empty() && !options.graphTab;
    int scriptedFramesDone = 0;
    int eagerFrames = 0;
    int exitCode = 0;
    while (!glfwWindowShouldClose(session.window()) && !workbench.quitRequested()) {
        // Idle, the window sleeps until input (or a quarter second passes, to show background progress). After
        // input it draws a few frames at full rate: ImGui settles scrolling, hover and focus over frames.
        if (scripted || workbench.loading() || eagerFrames > 0) {
            glfwPollEvents();
            eagerFrames = std::max(0, eagerFrames - 1);
        } else {
            auto sleptFrom = std::chrono::steady_clock::now();
            glfwWaitEventsTimeout(kIdleWakeSeconds);
            if (std::chrono::steady_clock::now() - sleptFrom < std::chrono::duration<double>(kIdleWakeSeconds * 0.9))
                eagerFrames = kFramesAfterInput;
        }
        bool loaded = !workbench.loading();
        if (loaded && !selectionApplied) {
            selectionApplied = true;
            bool selected = options.selectCompile.empty() || workbench.selectCompile(options.selectCompile, error);
            if (selected && options.graphTab) selected = workbench.selectGraphKind(*options.graphTab, error);
            if (selected && !options.selectKernel.empty()) selected = workbench.selectKernel(options.selectKernel, error);
            if (!selected) {
                fmt::print(stderr, "cwb: {}\n", error);
                exitCode = 2;
                break;
            }
        }
        if (contentScaleChanged) {
            contentScaleChanged = false;
            scale = contentScale(session.window());
            applyScale(scale, true);
        }
        bool lastScriptedFrame = scripted && loaded && scriptedFramesDone + 1 >= framesToRender;
        // Graph layouts run on their own thread; a screenshot waits for them and gives the views a frame to
        // pick the result up, rather than capturing "laying out...".
        if (lastScriptedFrame && graphLayoutsPending()) {
            waitForGraphLayouts(kScriptedLayoutTimeout);
            framesToRender = scriptedFramesDone + 2;
            lastScriptedFrame = false;
        }
        bool snapshotFrame = snapshotRequested != 0;
        snapshotRequested = 0;
        UiDump dump;
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        // Scripted frames must not depend on where the (virtual) pointer happens to be: no hover, no tooltips.
        if (scripted) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        ImGui::NewFrame();
        workbench.drawFrame((lastScriptedFrame && options.dumpUi) || snapshotFrame ? &dump : nullptr);
        renderFrame(session.window());
        key_taps::releaseHeldKeys();
        if (snapshotFrame) writeSnapshot(session.window(), options.snapshotOnSignalPrefix,
                                         fmt::format("views: {}\n{}", workbench.viewNames(), dump.text()));
        if (scripted && loaded) ++scriptedFramesDone;
        if (lastScriptedFrame) {
            if (!options.screenshotPath.empty()) {
                int width = 0;
                int height = 0;
                glfwGetFramebufferSize(session.window(), &width, &height);
                if (!writeScreenshot(options.screenshotPath, width, height, error)) {
                    fmt::print(stderr, "cwb: {}\n", error);
                    exitCode = 1;
                }
            }
            if (options.dumpUi) fmt::print("views: {}\n{}", workbench.viewNames(), dump.text());
            for (const std::string& failure : workbench.loadErrors()) {
                fmt::print(stderr, "cwb: {}\n", failure);
                exitCode = 1;
            }
            break;
        }
        glfwSwapBuffers(session.window());
        if (scripted && !loaded && std::chrono::steady_clock::now() - started > kScriptedLoadTimeout) {
            fmt::print(stderr, "cwb: loading took longer than 5 minutes; giving up\n");
            exitCode = 1;
            break;
        }
        if (scripted && !loaded) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (persistent) {
        int width = 0;
        int height = 0;
        glfwGetWindowSize(session.window(), &width, &height);
        config.windowWidth = static_cast<int>(static_cast<float>(width) / scale);
        config.windowHeight = static_cast<int>(static_cast<float>(height) / scale);
        ImGui::SaveIniSettingsToDisk(configPath.c_str());
    }
    return exitCode;
}

}  // namespace app
