// Infix and in-place operators in FX graph text (see fx_operators.h).
#include "parse/fx_operators.h"

#include "parse/text_scan.h"

namespace traces::fx_operators {
namespace {

using scan::trim;

bool isArithmetic(const InfixOperator& op) {
    return op.token != "<" && op.token != ">" && op.token.find('=') == std::string_view::npos;
}

/// False for a statement that the scan below cannot find an in-place operation in, true for every one it can:
/// an operator needs "X= " with X an arithmetic token's last character, a setitem a name then '[' from the start.
/// Most statements are neither (`name: "f32[8]" = torch.ops.aten.add.Tensor(x, y)`) and skip the scan.
bool mayBeInPlace(std::string_view statement) {
    std::string_view target = scan::trimLeft(statement);
    size_t name = 0;
    while (name < target.size() && scan::isIdentChar(target[name])) ++name;
    if (name > 0 && name < target.size() && target[name] == '[') return true;
    for (size_t i = statement.find('=', 1); i != std::string_view::npos && i + 1 < statement.size();
         i = statement.find('=', i + 1)) {
        if (statement[i + 1] != ' ') continue;
        switch (statement[i - 1]) {
            case '*': case '/': case '<': case '>': case '+': case '-': case '%': case '@': case '&': case '|':
            case '^': return true;
            default: break;
        }
    }
    return false;
}

}  // namespace

/// One scan over the statement looks at each top-level "= ": the text before it tells " += ", " //= ", ... from
/// " = " (a search per operator made this a third of an import's parsing: most statements end in "; x = None").
/// Where several operators occur, the first in kInfixOperators wins, at its first occurrence.
std::optional<InPlaceOperation> inPlaceOperationOf(std::string_view statement) {
    if (!mayBeInPlace(statement)) return std::nullopt;
    size_t winner = kInfixOperators.size();
    size_t winnerPos = std::string_view::npos;
    size_t assignPos = std::string_view::npos;  // the first top-level " = "
    int depth = 0;
    for (size_t i = 0; i < statement.size();) {
        char c = statement[i];
        if (c == '\'' || c == '"') {
            i = scan::skipQuoted(statement, i);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        else if (c == '=' && depth == 0 && i > 0 && i + 1 < statement.size() && statement[i + 1] == ' ') {
            if (statement[i - 1] == ' ' && assignPos == std::string_view::npos) assignPos = i - 1;
            for (size_t k = 0; k < winner; ++k) {
                std::string_view token = kInfixOperators[k].token;
                if (!isArithmetic(kInfixOperators[k]) || i < token.size() + 1) continue;
                if (statement[i - token.size() - 1] == ' ' && statement.substr(i - token.size(), token.size()) == token) {
                    winner = k;
                    winnerPos = i - token.size() - 1;
                    break;
                }
            }
        }
        ++i;
    }
    if (winner < kInfixOperators.size()) {
        const InfixOperator& op = kInfixOperators[winner];
        std::string_view name = op.target.substr(op.target.find('.') + 1);
        if (name.ends_with('_')) name.remove_suffix(1);  // and_ -> iand
        size_t afterToken = winnerPos + op.token.size() + 3;  // " ", the token, "= "
        return InPlaceOperation{"operator.i" + std::string(name), std::string(trim(statement.substr(0, winnerPos))) + ", " +
                                                                     std::string(trim(statement.substr(afterToken)))};
    }
    size_t eq = assignPos;
    std::string_view target = eq == std::string_view::npos ? std::string_view() : trim(statement.substr(0, eq));
    size_t open = target.find('[');
    if (open == std::string_view::npos || !scan::isIdentifier(target.substr(0, open)) || !target.ends_with(']') ||
        scan::findClosingBracket(target, open) != target.size() - 1)
        return std::nullopt;
    return InPlaceOperation{"operator.setitem", std::string(target.substr(0, open)) + ", " +
                                                    std::string(target.substr(open + 1, target.size() - open - 2)) + ", " +
                                                    std::string(trim(statement.substr(eq + 3)))};
}

std::optional<std::pair<size_t, const InfixOperator*>> findInfixOperator(std::string_view expr) {
    int depth = 0;
    for (size_t i = 0; i < expr.size();) {
        char c = expr[i];
        if (c == '\'' || c == '"') {
            i = scan::skipQuoted(expr, i);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        else if (c == ' ' && depth == 0) {
            for (const InfixOperator& op : kInfixOperators) {
                size_t end = i + 1 + op.token.size();
                if (end < expr.size() && expr[end] == ' ' && expr.substr(i + 1, op.token.size()) == op.token)
                    return std::make_pair(i, &op);
            }
        }
        ++i;
    }
    return std::nullopt;
}

}  // namespace traces::fx_operators
