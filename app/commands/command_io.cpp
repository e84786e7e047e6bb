// Opening traces with a progress line and writing command results, for report, diff, runtime and trace.
#include "commands/command_io.h"

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "commands/progress_line.h"
#include "importers/import_path.h"

namespace cwb {

traces::TraceData openTraceWithProgress(const std::string& path, const std::string& label) {
    ProgressLine progress;
    traces::TraceData trace = traces::openAsTrace(path, nullptr, [&](const std::string&, uint64_t done, uint64_t total) {
        progress.update(label, done, total);
    });
    progress.finish();
    return trace;
}

bool writeCommandOutput(const std::string& output, const std::string& what,
                        const std::function<void(std::ostream&)>& write) {
    if (output.empty() || output == "-") {
        write(std::cout);
        std::cout.flush();
        return false;
    }
    std::ofstream out(output, std::ios::binary);
    if (!out) throw std::runtime_error(output + ": cannot write the " + what);
    write(out);
    out.close();
    if (!out) throw std::runtime_error(output + ": writing the " + what + " failed");
    return true;
}

}  // namespace cwb
