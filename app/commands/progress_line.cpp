// ProgressLine (see progress_line.h).
#include "commands/progress_line.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

namespace cwb {

ProgressLine::ProgressLine()
    : enabled_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()), lastDraw_(start_) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(const std::string& label, uint64_t done, uint64_t total) {
    if (!enabled_) return;
    auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - lastDraw_ < std::chrono::milliseconds(200)) return;
    lastDraw_ = now;
    double seconds = std::chrono::duration<double>(now - start_).count();
    double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    int filled = static_cast<int>(fraction * 30);
    double mbPerSecond = seconds > 0 ? static_cast<double>(done) / 1e6 / seconds : 0;
    fmt::print(stderr, "\r[{:<30}] {:5.1f}%  {:.0f} MB/s  {}\x1b[K", std::string(static_cast<size_t>(filled), '#'),
               fraction * 100, mbPerSecond, label);
    std::fflush(stderr);
    drawn_ = true;
}

void ProgressLine::finish() {
    if (drawn_) fmt::print(stderr, "\r\x1b[K");
    drawn_ = false;
}

}  // namespace cwb
