// `cwb open PATH... [--view NAME] [--select COMPILE_ID] [--graph-tab KIND] [--scale S] [--frames N]
// [--screenshot FILE.png] [--dump-ui] [--snapshot-on-sigusr1 PREFIX] [--follow]`: the desktop workbench; with
// --screenshot (or --frames) it renders a few frames, writes the PNG and exits.
#include <fmt/core.h>

#include "commands/commands.h"
#include "gui/gui_main.h"

namespace cwb {
namespace {

struct OpenOptions {
    std::vector<std::string> paths;
    std::string view;
    std::string select;
    std::string kernel;
    int frames = 0;
    std::string screenshot;
    bool dumpUi = false;
    std::string graphTab;
    float scale = 0.0f;
    std::string snapshotPrefix;
    bool follow = false;
};

constexpr const char* kGraphTabNames =
    "dynamo, aot_joint, aot_forward, aot_backward, aot_inference, pre_grad, post_grad, joint_pass, "
    "compiled_autograd, ddp_split or other";

int runOpen(const OpenOptions& options, bool framesGiven, bool scaleGiven) {
    keepImportMemoryFlat();
    app::WorkbenchOptions workbench;
    workbench.paths = options.paths;
    if (!options.view.empty()) {
        workbench.view = app::viewFromName(options.view);
        if (!workbench.view)
            throw CLI::ValidationError("--view", "expected " + app::viewNameList() + ", got '" +
                                                     options.view + "'");
    }
    workbench.selectCompile = options.select;
    workbench.selectKernel = options.kernel;
    // A kernel is shown by the code view: show it unless another view was asked for.
    if (!options.kernel.empty() && !workbench.view) workbench.view = app::ViewId::Code;
    if (!options.graphTab.empty()) {
        workbench.graphTab = traces::graphKindFromString(options.graphTab);
        if (!workbench.graphTab)
            throw CLI::ValidationError("--graph-tab", std::string("expected ") + kGraphTabNames + ", got '" + options.graphTab + "'");
        // The tab is the graph view's: show that view unless another was asked for.
        if (!workbench.view) workbench.view = app::ViewId::Graph;
    }
    if (scaleGiven) workbench.scale = options.scale;
    workbench.snapshotOnSignalPrefix = options.snapshotPrefix;
    workbench.follow = options.follow;
    if (framesGiven) workbench.frames = options.frames;
    workbench.screenshotPath = options.screenshot;
    workbench.dumpUi = options.dumpUi;
    if (workbench.dumpUi && !workbench.frames && workbench.screenshotPath.empty()) workbench.frames = 3;
    return app::runWorkbench(workbench);
}

}  // namespace

void registerOpenCommand(CLI::App& app) {
    auto options = std::make_shared<OpenOptions>();
    CLI::App* cmd = app.add_subcommand("open", "Open traces, logs or directories in the desktop workbench");
    cmd->add_option("PATH", options->paths, "Trace files (.db), TORCH_TRACE logs or directories of logs");
    cmd->add_option("--view", options->view, "View to show: " + app::viewNameList());
    cmd->add_option("--select", options->select, "Compile id to select, e.g. 0/1 or [0/1]");
    cmd->add_option("--kernel", options->kernel,
                    "Kernel to open by name, in the selected compile's generated code (implies --view code)");
    CLI::Option* frames =
        cmd->add_option("--frames", options->frames, "Render this many frames after loading, then exit (default 3 with --screenshot)")
            ->check(CLI::Range(1, 100000));
    cmd->add_option("--screenshot", options->screenshot, "Write the last frame to this PNG file and exit");
    cmd->add_flag("--dump-ui", options->dumpUi, "Print the visible windows, panels and rows of the last frame");
    cmd->add_option("--graph-tab", options->graphTab,
                    std::string("Graph view tab to show (implies --view graph): ") + kGraphTabNames);
    CLI::Option* scale = cmd->add_option("--scale", options->scale,
                                         "UI scale, e.g. 2 for a HiDPI screen (default: the screen's, from Xft.dpi on X11)")
                             ->check(CLI::Range(0.5, 4.0));
    cmd->add_option("--snapshot-on-sigusr1", options->snapshotPrefix,
                    "Live window: on each SIGUSR1 write the frame to PREFIX.png and what it shows to PREFIX.txt");
    cmd->add_flag("--follow", options->follow,
                  "Import logs and directories again whenever they grow: watch a job that is still running");
    cmd->callback([options, frames, scale] {
        throw CLI::RuntimeError(runOpen(*options, frames->count() > 0, scale->count() > 0));
    });
}

}  // namespace cwb
