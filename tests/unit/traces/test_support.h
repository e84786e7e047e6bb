// Helpers shared by the trace-store tests: temporary directories, and a builder for TORCH_TRACE log text
// with correct md5 digests so that each test can break exactly one thing.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "store/md5.h"

namespace testsupport {

class TempDir {
public:
    TempDir() {
        std::string pattern = (std::filesystem::temp_directory_path() / "cwb-test-XXXXXX").string();
        path_ = ::mkdtemp(pattern.data());
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline void writeFile(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Builds log text record by record, the way PyTorch's trace handler writes it.
class LogBuilder {
public:
    /// `json` is the envelope without has_payload; the builder adds it when `payload` is given.
    LogBuilder& record(const std::string& json, const std::string* payload = nullptr) {
        std::string envelope = json;
        if (payload) envelope.insert(envelope.size() - 1, ", \"has_payload\": \"" + traces::md5Hex(*payload) + "\"");
        text_ += "V1122 06:30:53.061000 762 torch/_dynamo/convert_frame.py:276] " + envelope + "\n";
        if (payload) {
            size_t start = 0;
            for (;;) {
                size_t nl = payload->find('\n', start);
                text_ += "\t" + payload->substr(start, nl == std::string::npos ? std::string::npos : nl - start) + "\n";
                if (nl == std::string::npos) break;
                start = nl + 1;
            }
        }
        return *this;
    }
    LogBuilder& record(const std::string& json, const std::string& payload) { return record(json, &payload); }
    LogBuilder& raw(const std::string& text) {
        text_ += text;
        return *this;
    }
    const std::string& text() const { return text_; }

private:
    std::string text_;
};

/// The envelope keys of compile `frame/compile` attempt `attempt`.
inline std::string ctx(int frame, int compile, int attempt = 0) {
    return "\"frame_id\": " + std::to_string(frame) + ", \"frame_compile_id\": " + std::to_string(compile) +
           ", \"attempt\": " + std::to_string(attempt);
}

}  // namespace testsupport
