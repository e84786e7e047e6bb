// The workbench's process-level loop: GLFW window with an OpenGL 3.3 core context, Dear ImGui, fonts and HiDPI
// scale, the per-user config file, drag and drop, and the scripted mode that renders N frames and writes a PNG.
#include "gui/gui_main.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <fmt/core.h>
#include <imgui.h>

#include <cfloat>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "gui/fonts.h"
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

void onDrop(GLFWwindow* window, int count, const char** paths) {
    auto* workbench = static_cast<Workbench*>(glfwGetWindowUserPointer(window));
    std::vector<std::string> dropped(paths, paths + count);
    workbench->queueDrop(std::move(dropped));
}

float contentScale(GLFWwindow* window) {
    float x = 1.0f;
    float y = 1.0f;
    glfwGetWindowContentScale(window, &x, &y);
    return std::max(1.0f, std::max(x, y));
}

/// Owns GLFW, the window and the ImGui context, so every exit path tears them down in order.
class WindowSession {
public:
    bool start(int width, int height, std::string& error) {
        glfwSetErrorCallback(onGlfwError);
        if (!glfwInit()) {
            error = "cannot initialise GLFW (no display? run under xvfb-run for headless use)";
            return false;
        }
        glfwInitialised_ = true;
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
    glClearColor(0.08f, 0.09f, 0.10f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace

int runWorkbench(const WorkbenchOptions& options) {
    bool scripted = options.frames.has_value() || !options.screenshotPath.empty();
    int framesToRender = options.frames.value_or(kDefaultScriptedFrames);
    // Scripted runs (screenshots for tests and bug reports) must look the same for everyone: no user config.
    bool persistent = !scripted;

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
    if (!session.start(config.windowWidth, config.windowHeight, error)) {
        fmt::print(stderr, "cwb: {}\n", error);
        return 1;
    }
    float scale = contentScale(session.window());
    loadFonts(scale);
    theme::applyStyle(scale);
    if (!session.startImGui()) {
        fmt::print(stderr, "cwb: cannot initialise the OpenGL 3 renderer\n");
        return 1;
    }

    Workbench workbench(config, persistent);
    glfwSetWindowUserPointer(session.window(), &workbench);
    glfwSetDropCallback(session.window(), onDrop);
    for (size_t i = 0; i < options.paths.size(); ++i)
        workbench.openInPane(options.paths[i], i == 1 && !scripted ? 1 : 0);
    if (options.view) workbench.showView(*options.view);

    auto started = std::chrono::steady_clock::now();
    bool selectionApplied = options.selectCompile.empty();
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
            if (!workbench.selectCompile(options.selectCompile, error)) {
                fmt::print(stderr, "cwb: {}\n", error);
                exitCode = 2;
                break;
            }
        }
        bool lastScriptedFrame = scripted && loaded && scriptedFramesDone + 1 >= framesToRender;
        // Graph layouts run on their own thread; a screenshot waits for them and gives the views a frame to
        // pick the result up, rather than capturing "laying out...".
        if (lastScriptedFrame && graphLayoutsPending()) {
            waitForGraphLayouts(kScriptedLayoutTimeout);
            framesToRender = scriptedFramesDone + 2;
            lastScriptedFrame = false;
        }
        UiDump dump;
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        // Scripted frames must not depend on where the (virtual) pointer happens to be: no hover, no tooltips.
        if (scripted) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        ImGui::NewFrame();
        workbench.drawFrame(lastScriptedFrame && options.dumpUi ? &dump : nullptr);
        renderFrame(session.window());
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
        glfwGetWindowSize(session.window(), &config.windowWidth, &config.windowHeight);
        ImGui::SaveIniSettingsToDisk(configPath.c_str());
    }
    return exitCode;
}

}  // namespace app
