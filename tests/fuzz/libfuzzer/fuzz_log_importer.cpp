// libFuzzer target: the TORCH_TRACE log importer. The input is imported as a log into memory; malformed records
// must become import issues, never a crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "importers/torch_trace/torch_trace_importer.h"
#include "store/memory_sink.h"

namespace {

/// The log the importer reads: an in-memory file (a file on disk, truncated and rewritten per input, made each
/// run wait for the disk), read through its /proc/self/fd path.
struct MemoryLog {
    int fd = memfd_create("cwb_fuzz_log", 0);
    std::string path = "/proc/self/fd/" + std::to_string(fd);

    void write(const uint8_t* data, size_t size) {
        if (fd < 0 || ftruncate(fd, 0) != 0) throw std::runtime_error("memfd_create/ftruncate failed");
        for (size_t done = 0; done < size;) {
            ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) throw std::runtime_error("pwrite to the in-memory log failed");
            done += static_cast<size_t>(n);
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static MemoryLog log;
    log.write(data, size);
    // The rows go to a MemorySink, not a fresh trace file: the importer's parsing is what meets untrusted bytes,
    // and creating a SQLite file per input (schema, journal switches, a writer thread) cost most of each run.
    traces::MemorySink sink;
    traces::importTorchTraceLog(log.path, sink);
    return 0;
}
