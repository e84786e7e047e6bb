// Benchmark (not a test): what a follow-mode refresh costs as a log grows. Copies a log into a temporary file in
// PARTS parts and, after each, times the import of the appended bytes (FollowedPath::update) and the load of the
// grown model from memory (FollowedPath::load); then a one-shot import of the whole log, for comparison.
// Usage: traces_follow_bench LOG [PARTS] (default 20).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "importers/followed_log.h"
#include "importers/import_path.h"

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s LOG [PARTS]\n", argv[0]);
        return 2;
    }
    std::string log = traces::listTraceLogs(argv[1]).at(0);
    int parts = argc > 2 ? std::stoi(argv[2]) : 20;
    std::ifstream in(log, std::ios::binary);
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::filesystem::path copy = std::filesystem::temp_directory_path() / "cwb_follow_bench_torch_trace.log";
    std::filesystem::remove(copy);
    std::ofstream(copy, std::ios::binary).flush();
    traces::FollowedPath followed(copy.string());
    std::printf("%s: %.1f MB in %d parts\n%6s %10s %10s %10s %8s\n", log.c_str(), static_cast<double>(text.size()) / 1e6,
                parts, "part", "MB so far", "update ms", "load ms", "rows");
    double updateTotal = 0;
    for (int part = 1; part <= parts; ++part) {
        size_t from = text.size() * static_cast<size_t>(part - 1) / static_cast<size_t>(parts);
        size_t to = text.size() * static_cast<size_t>(part) / static_cast<size_t>(parts);
        std::ofstream(copy, std::ios::binary | std::ios::app) << std::string_view(text).substr(from, to - from);
        auto start = std::chrono::steady_clock::now();
        followed.update();
        double update = secondsSince(start);
        updateTotal += update;
        start = std::chrono::steady_clock::now();
        traces::TraceData model = followed.load();
        double load = secondsSince(start);
        size_t rows = model.compiles.size() + model.graphs.size() + model.artifacts.size() + model.spans.size() +
                      model.guards.size() + model.outputCode.size();
        std::printf("%6d %10.1f %10.1f %10.1f %8zu\n", part, static_cast<double>(to) / 1e6, update * 1e3, load * 1e3,
                    rows);
    }
    auto start = std::chrono::steady_clock::now();
    traces::openAsTrace(copy.string());
    std::printf("updates in all: %.0f ms; one import and load of the whole log: %.0f ms\n", updateTotal * 1e3,
                secondsSince(start) * 1e3);
    std::filesystem::remove(copy);
    return 0;
}
