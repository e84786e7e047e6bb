// libFuzzer target: the trace reader on damaged .db files. Opening must load the trace or throw an error that
// names the problem (a std::exception), never crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <string>

#include "store/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string path = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + std::string("/cwb_fuzz_read_") +
                                    std::to_string(getpid()) + ".db";
    for (const char* suffix : {"-wal", "-shm"}) unlink((path + suffix).c_str());
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        traces::loadTrace(path);
    } catch (const std::exception&) {
        // A clear error is the expected answer to a damaged file.
    }
    return 0;
}
