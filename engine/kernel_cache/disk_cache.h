// Compiled kernels cached on disk, keyed by everything that decides the binary (for NVRTC's CUBINs: the source,
// the architecture, the NVRTC version and the options; for the CPU code generator's object files: the kernel IR,
// the host CPU, LLVM's version and the executable). Device-neutral: both backends keep their binaries here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace eng::kernel_cache {

// $CWB_KERNEL_CACHE_DIR if set, else $XDG_CACHE_HOME/cwb/kernels, else ~/.cache/cwb/kernels; empty (the disk
// cache off) with CWB_KERNEL_CACHE=0 (as PyTorch's TORCHINDUCTOR_FX_GRAPH_CACHE=0) or when none can be determined.
std::filesystem::path defaultKernelCacheDir();

// One file per kernel, named by a hash of the key and the kind of binary (`.cubin`, `.o`); the file also holds the
// whole key, so that a hash collision or a truncated file reads as a miss. Writes go to a temporary file renamed
// into place, so concurrent processes never see partial files.
class DiskKernelCache {
public:
    DiskKernelCache(std::filesystem::path dir, std::string suffix) : dir_(std::move(dir)), suffix_(std::move(suffix)) {}
    const std::filesystem::path& dir() const { return dir_; }
    std::optional<std::string> load(const std::string& key) const;
    // Best effort: an unwritable cache directory costs a recompile later, never an error.
    void store(const std::string& key, const std::string& binary) const;
    std::filesystem::path pathFor(const std::string& key) const;

private:
    std::filesystem::path dir_;
    std::string suffix_;
};

// This build of cwb: its executable's path, size and modification time. Keys that include it miss after a rebuild,
// whose code generators or schedulers may produce other code for the same input.
const std::string& executableIdentity();

// `text` (C source, a kernel's IR text) with every identifier that is names[i], or names[i] + '_' + a suffix (the
// names a code generator derives from it: `buf3_v`, `<entry>_finish`), replaced by a marker of i that no source
// holds, followed by the suffix (the longest such name; the first i where a name repeats). Numbers are skipped
// whole, so a name never matches inside `0x1f` or `1e5f`. Two texts equal after masking differ only by a
// one-to-one renaming of identifiers (the masked token determines the original given the names), so a kernel
// whose name and parameter names are masked compiles to the same code as any other with the same masked text:
// its cache key.
std::string maskNames(const std::string& text, const std::vector<std::string>& names);

// 64-bit FNV-1a, as 16 hex digits (file names; the full key is still compared on load).
std::string hashHex(const std::string& text);

}  // namespace eng::kernel_cache
