// The debug trace folder (see debug_trace.h): torch_compile_debug/cwb_pid_<pid>/graph_<n>/ with output_code.py,
// one file per kernel (.ll for LLVM IR, .cu for CUDA) and fusion.dot.
#include "inductor/debug_trace.h"

#include <unistd.h>

#include <atomic>
#include <fstream>

#include <fmt/format.h>

namespace eng::inductor {

namespace {

void writeFile(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

/// Buffers as nodes, reads as edges, each kernel a cluster: what fused with what, at a glance.
std::string fusionDot(const CompiledGraph& compiled) {
    const LoweredGraph& g = compiled.graph();
    const Schedule& s = compiled.schedule();
    std::string dot = "digraph fusion {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
    for (const GraphBuffer& b : g.buffers)
        if (b.kind == BufferKind::Input || b.kind == BufferKind::Extern)
            dot += fmt::format("  {} [label={}{}];\n", b.name, quoted(b.name + (b.kind == BufferKind::Extern ? "\n" + b.extern_.op : "")),
                               b.kind == BufferKind::Extern ? ", style=filled, fillcolor=lightgrey" : "");
    for (size_t k = 0; k < s.kernels.size(); ++k) {
        dot += fmt::format("  subgraph cluster_{} {{\n    label={};\n", k, quoted(s.kernels[k].kernel.name));
        for (int id : s.kernels[k].members) {
            const GraphBuffer& b = g.buffers[static_cast<size_t>(id)];
            dot += fmt::format("    {} [label={}{}];\n", b.name, quoted(b.name + "\n" + fmt::format("{}", fmt::join(b.originNodes, ", "))),
                               s.stored[static_cast<size_t>(id)] ? "" : ", style=dashed");
        }
        dot += "  }\n";
    }
    for (const ScheduledKernel& k : s.kernels)
        for (size_t p = 0; p < k.bufferIds.size(); ++p)
            if (k.kernel.buffers[p].read)
                for (int member : k.members)
                    if (k.bufferIds[p] != member) {
                        dot += fmt::format("  {} -> {};\n", g.buffers[static_cast<size_t>(k.bufferIds[p])].name, g.buffers[static_cast<size_t>(member)].name);
                        break;
                    }
    for (const GraphBuffer& b : g.buffers)
        if (b.kind == BufferKind::Extern)
            for (int in : b.extern_.inputBuffers) dot += fmt::format("  {} -> {};\n", g.buffers[static_cast<size_t>(in)].name, b.name);
    return dot + "}\n";
}

}  // namespace

std::filesystem::path writeDebugTrace(const std::filesystem::path& root, const traces::OutputCode& code, const CompiledGraph& compiled,
                                      bool graphDiagram) {
    static std::atomic<int> graphs{0};
    std::filesystem::path folder = root / fmt::format("cwb_pid_{}", ::getpid()) / fmt::format("graph_{}", graphs++);
    std::filesystem::create_directories(folder);
    writeFile(folder / "output_code.py", code.source);
    for (const traces::Kernel& k : code.kernels)
        writeFile(folder / (k.name + (k.language == "cuda" ? ".cu" : k.language == "llvm_ir" ? ".ll" : ".txt")), k.source);
    if (graphDiagram) writeFile(folder / "fusion.dot", fusionDot(compiled));
    return folder;
}

}  // namespace eng::inductor
