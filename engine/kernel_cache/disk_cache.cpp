// The on-disk kernel cache: <dir>/<hash><suffix> holding a header, the full key and the binary.
#include "kernel_cache/disk_cache.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <unistd.h>

namespace eng::kernel_cache {

namespace {

constexpr std::string_view kMagic = "cwb-kernel-cache 1\n";

}  // namespace

std::filesystem::path defaultKernelCacheDir() {
    if (const char* enabled = std::getenv("CWB_KERNEL_CACHE"); enabled && std::string_view(enabled) == "0") return {};
    if (const char* explicitDir = std::getenv("CWB_KERNEL_CACHE_DIR"); explicitDir && *explicitDir) return explicitDir;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "cwb" / "kernels";
    if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "cwb" / "kernels";
    return {};
}

const std::string& executableIdentity() {
    static const std::string identity = [] {
        std::error_code ec;
        const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
        if (ec) return std::string("exe unknown");
        const auto size = std::filesystem::file_size(self, ec);
        const auto written = std::filesystem::last_write_time(self, ec).time_since_epoch().count();
        return "exe " + self.string() + " " + std::to_string(size) + " " + std::to_string(written);
    }();
    return identity;
}

std::string hashHex(const std::string& text) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    return fmt::format("{:016x}", hash);
}

std::string maskNames(const std::string& text, const std::vector<std::string>& names) {
    std::unordered_map<std::string_view, size_t> index;
    for (size_t i = 0; i < names.size(); ++i) index.emplace(names[i], i);
    auto identifierChar = [](char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    std::string masked;
    masked.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        if (!identifierChar(text[i])) {
            masked += text[i++];
            continue;
        }
        size_t end = i;
        while (end < text.size() && (identifierChar(text[end]) || (text[i] >= '0' && text[i] <= '9' && text[end] == '.'))) ++end;
        const std::string_view token(text.data() + i, end - i);
        i = end;
        if (token[0] >= '0' && token[0] <= '9') {
            masked += token;
            continue;
        }
        // The longest name that is the token or its part before an '_' (`buf3_v`, a local made from buffer buf3's name).
        size_t length = token.size();
        auto found = index.find(token);
        while (found == index.end()) {
            length = token.rfind('_', length - 1);
            if (length == std::string_view::npos || length == 0) break;
            found = index.find(token.substr(0, length));
        }
        // '\x01' occurs in no C source or kernel text, so a marker never equals text that was not a name.
        if (found != index.end()) masked += fmt::format("\x01{}\x01{}", found->second, token.substr(found->first.size()));
        else masked += token;
    }
    return masked;
}

std::filesystem::path DiskKernelCache::pathFor(const std::string& key) const { return dir_ / (hashHex(key) + suffix_); }

std::optional<std::string> DiskKernelCache::load(const std::string& key) const {
    if (dir_.empty()) return std::nullopt;
    std::ifstream in(pathFor(key), std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string content = buffer.str();
    // Layout: magic, key length as decimal + '\n', key, binary.
    if (content.compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
    const size_t lengthEnd = content.find('\n', kMagic.size());
    if (lengthEnd == std::string::npos) return std::nullopt;
    const std::string lengthText = content.substr(kMagic.size(), lengthEnd - kMagic.size());
    char* end = nullptr;
    const unsigned long long keyLength = std::strtoull(lengthText.c_str(), &end, 10);
    if (end == lengthText.c_str() || *end != '\0') return std::nullopt;
    const size_t keyStart = lengthEnd + 1;
    if (content.size() < keyStart + keyLength || content.compare(keyStart, keyLength, key) != 0 || keyLength != key.size())
        return std::nullopt;
    std::string binary = content.substr(keyStart + keyLength);
    if (binary.empty()) return std::nullopt;
    return binary;
}

void DiskKernelCache::store(const std::string& key, const std::string& binary) const {
    if (dir_.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) return;
    static std::atomic<uint64_t> sequence{0};
    const std::filesystem::path finalPath = pathFor(key);
    const std::filesystem::path tempPath =
        dir_ / fmt::format(".{}.tmp.{}.{}", finalPath.filename().string(), static_cast<long>(getpid()), sequence++);
    {
        std::ofstream out(tempPath, std::ios::binary | std::ios::trunc);
        if (!out) return;
        out << kMagic << key.size() << '\n' << key << binary;
        out.flush();
        if (!out) {
            out.close();
            std::filesystem::remove(tempPath, ec);
            return;
        }
    }
    std::filesystem::rename(tempPath, finalPath, ec);
    if (ec) std::filesystem::remove(tempPath, ec);
}

}  // namespace eng::kernel_cache
