// libFuzzer target: the text parsers of traces/parse (FX graph text, C++ guard trees, guard lists, output code,
// graph-break and restart reasons, recompile reasons, traceback lines). The first byte picks the parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/fx_graph_text.h"
#include "parse/graph_break_text.h"
#include "parse/guard_tree.h"
#include "parse/output_code.h"
#include "parse/recompile_reasons.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    switch (data[0] % 10) {
        case 0: traces::parseFxGraphText(text); break;
        case 1: traces::parseCppGuardTree(text); break;
        case 2: traces::parseGuardListJson(text); break;
        case 3: traces::splitOutputCode(text); break;
        case 4: traces::outputCodeLanguage(text); break;
        case 5: traces::parseGraphBreakText(text); break;
        case 6: traces::parseRestartReason(text); break;
        case 7: traces::parseRecompileReasonsPayload(text); break;
        case 8: traces::splitGuardFailure(text); break;
        default: traces::parseTracebackFileLine(text); traces::guardLatencyUs(text); traces::parseFxValueType(text); break;
    }
    return 0;
}
