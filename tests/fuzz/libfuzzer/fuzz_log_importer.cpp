// libFuzzer target: the TORCH_TRACE log importer. The input is written as a log and imported into a fresh trace;
// malformed records must become import issues, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "importers/torch_trace/torch_trace_importer.h"
#include "store/trace_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = [] {
        std::string base = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + std::string("/cwb_fuzz_import_") +
                           std::to_string(getpid());
        return base;
    }();
    const std::string log = dir + ".log", db = dir + ".db";
    {
        std::ofstream out(log, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    traces::TraceWriter writer(db);
    traces::importTorchTraceLog(log, writer);
    return 0;
}
