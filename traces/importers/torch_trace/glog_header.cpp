// Hand-written parser for TORCH_TRACE glog headers: a regex would dominate the import time of large logs.
#include "importers/torch_trace/glog_header.h"

namespace traces {
namespace {

struct Cursor {
    std::string_view text;
    size_t pos = 0;

    bool digits(int count, int& value) {
        value = 0;
        for (int i = 0; i < count; ++i, ++pos) {
            if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') return false;
            value = value * 10 + (text[pos] - '0');
        }
        return true;
    }
    bool literal(char c) {
        if (pos >= text.size() || text[pos] != c) return false;
        ++pos;
        return true;
    }
};

constexpr size_t kMaxIdDigits = 18;   // below INT64_MAX
constexpr size_t kMaxLineDigits = 9;  // below INT_MAX

}  // namespace

bool parseGlogHeader(std::string_view line, GlogHeader& out, int& errorColumn, const char*& expected) {
    Cursor c{line};
    auto fail = [&](const char* what) {
        errorColumn = static_cast<int>(c.pos) + 1;
        expected = what;
        return false;
    };
    if (line.empty() || std::string_view("VIWEC").find(line[0]) == std::string_view::npos)
        return fail("a log level letter (V, I, W, E or C)");
    out.level = line[0];
    c.pos = 1;
    if (!c.digits(2, out.month) || !c.digits(2, out.day)) return fail("a date MMDD");
    if (!c.literal(' ')) return fail("a space after the date");
    if (!c.digits(2, out.hour) || !c.literal(':') || !c.digits(2, out.minute) || !c.literal(':') ||
        !c.digits(2, out.second))
        return fail("a time HH:MM:SS");
    if (c.literal('.')) {
        int digitsSeen = 0;
        out.microsecond = 0;
        while (c.pos < line.size() && line[c.pos] >= '0' && line[c.pos] <= '9') {
            if (digitsSeen < 6) out.microsecond = out.microsecond * 10 + (line[c.pos] - '0');
            ++digitsSeen;
            ++c.pos;
        }
        if (digitsSeen == 0) return fail("fractional seconds");
        for (; digitsSeen < 6; ++digitsSeen) out.microsecond *= 10;
    }
    if (!c.literal(' ')) return fail("a space after the time");
    while (c.literal(' ')) {
    }
    size_t idStart = c.pos;
    out.processId = 0;
    while (c.pos < line.size() && line[c.pos] >= '0' && line[c.pos] <= '9') {
        // More digits than an int64 holds is no id (and would overflow): a damaged header.
        if (c.pos - idStart == kMaxIdDigits) return fail("a process or thread id of at most 18 digits");
        out.processId = out.processId * 10 + (line[c.pos] - '0');
        ++c.pos;
    }
    if (c.pos == idStart) return fail("a process or thread id");
    if (!c.literal(' ')) return fail("a space after the process id");
    size_t close = line.find("] ", c.pos);
    if (close == std::string_view::npos) return fail("'] ' closing the header");
    std::string_view where = line.substr(c.pos, close - c.pos);
    size_t colon = where.rfind(':');
    if (colon == std::string_view::npos) return fail("path:line of the emitting source");
    out.emitterFile = where.substr(0, colon);
    out.emitterLine = 0;
    for (size_t i = colon + 1; i < where.size(); ++i) {
        if (where[i] < '0' || where[i] > '9' || i - colon > kMaxLineDigits) {
            c.pos += i;
            return fail("a line number after the emitting source path");
        }
        out.emitterLine = out.emitterLine * 10 + (where[i] - '0');
    }
    c.pos = close + 2;
    out.json = line.substr(c.pos);
    if (out.json.empty() || out.json.front() != '{') return fail("a JSON object after ']'");
    return true;
}

}  // namespace traces
