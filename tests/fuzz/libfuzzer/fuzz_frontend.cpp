// libFuzzer target: the Python front end (lexer, parser, scope analysis, bytecode compiler, verifier). Any input
// must give code or a rendered `file:line:col: error:`, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/compiler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    eng::frontend::SourceFile file("fuzz.py", std::string(reinterpret_cast<const char*>(data), size));
    auto code = eng::frontend::compileSource(file);
    if (!code) (void)code.error().render();
    return 0;
}
