// The glog-style header that starts every TORCH_TRACE record:
//   V1122 06:30:53.061000 762 torch/_logging/structured.py:28] {"str": [...]}
#pragma once

#include <cstdint>
#include <string_view>

namespace traces {

struct GlogHeader {
    char level = 'V';
    int month = 0;
    int day = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
    int microsecond = 0;
    int64_t processId = 0;  ///< a pid in current PyTorch, a Python thread id in 2024-era logs
    std::string_view emitterFile;  ///< PyTorch source file that logged the record
    int emitterLine = 0;
    std::string_view json;  ///< the rest of the line: the record's JSON envelope
};

/// Parses one header line. On failure returns false and sets `errorColumn` (1-based) and `expected`.
bool parseGlogHeader(std::string_view line, GlogHeader& out, int& errorColumn, const char*& expected);

}  // namespace traces
