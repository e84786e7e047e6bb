// TORCH_LOGS=dynamic lines (see shape_logs.h), worded as ShapeEnv's create_symbol and _log_guard word them.
#include "capture/shape_logs.h"

#include <cstdlib>

#include <fmt/core.h>

#include "fx/fx_printer.h"
#include "fx/torch_logs.h"

namespace eng::capture {

namespace {

/// ShapeEnv's advice after each line, unless TORCHDYNAMO_EXTENDED_ADVICE is "0" or empty.
bool extendedAdvice() {
    const char* advice = std::getenv("TORCHDYNAMO_EXTENDED_ADVICE");
    return !advice || (std::string_view(advice) != "0" && std::string_view(advice) != "");
}

std::string userLocation(const GuardOrigin& where) {
    return where.file.empty() ? "" : fmt::format(" at {}:{} in {}", where.file, where.line, where.function);
}

}  // namespace

void logCreateSymbol(const std::string& symbol, const std::string& value, const std::string& source, const std::string& range,
                     const GuardOrigin& where) {
    if (!fx::torchLogEnabled("dynamic")) return;
    std::string text = fmt::format("create_symbol {} = {} for {} {}{}", symbol, value, source, range, userLocation(where));
    if (extendedAdvice())
        text += fmt::format(", for more info run with TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL=\"{}\" or to suppress this message run with "
                            "TORCHDYNAMO_EXTENDED_ADVICE=\"0\"",
                            symbol);
    fx::logComponent("dynamic", text);
}

std::string shapeGuardExpression(const std::string& symbol, const GuardSpec& guard) {
    // The comparison that held: negated when it came out false, as the guard text is (GuardSpec::code).
    static const char* symbols[] = {"<", "<=", "==", "!=", ">", ">="};
    static const uint32_t negated[] = {5, 4, 3, 2, 1, 0};
    const uint32_t op = guard.outcome ? guard.compareOp % 6 : negated[guard.compareOp % 6];
    const std::string bound = fx::constantText(guard.expected);
    if (op == 2) return fmt::format("Eq({}, {})", symbol, bound);
    if (op == 3) return fmt::format("Ne({}, {})", symbol, bound);
    return fmt::format("{} {} {}", symbol, symbols[op], bound);
}

void logShapeGuard(const std::string& symbol, const GuardSpec& guard) {
    if (!fx::torchLogEnabled("dynamic")) return;
    const std::string expression = shapeGuardExpression(symbol, guard);
    std::string text = fmt::format("eval {} [guard added]{} (_dynamo/variables/tensor.py:1951 in evaluate_expr)", expression,
                                   userLocation(guard.origin));
    if (extendedAdvice()) text += fmt::format(", for more info run with TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED=\"{}\"", expression);
    fx::logComponent("dynamic", text);
}

}  // namespace eng::capture
