// Reads Dynamo's guard dumps (C++ guard tree text and the legacy JSON list) into Guard rows and explains
// each guard in plain words. Hand-scanned: guard trees run to hundreds of lines per compile.
#include "parse/guard_tree.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "parse/text_scan.h"

namespace traces {
namespace {

using scan::trim;
using scan::trimLeft;
using scan::trimRight;

struct TreeLine {
    int depth = 0;
    std::string_view content;
};

/// "| | +- CONTENT" -> depth 2; nullopt for lines that are not tree lines.
std::optional<TreeLine> splitTreeLine(std::string_view line) {
    TreeLine out;
    size_t i = 0;
    while (i + 1 < line.size() && (line[i] == '|' || line[i] == ' ') && line[i + 1] == ' ') {
        ++out.depth;
        i += 2;
    }
    if (line.substr(i, 2) != "+-") return std::nullopt;
    out.content = trim(line.substr(i + 2));
    return out;
}

bool isUpperWord(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!((c >= 'A' && c <= 'Z') || scan::isDigit(c) || c == '_')) return false;
    return true;
}

/// `value` of "key=value, next=..." where value ends at the first of the listed following keys.
std::string_view managerField(std::string_view content, std::string_view key) {
    size_t start = content.find(key);
    if (start == std::string_view::npos) return {};
    std::string_view value = content.substr(start + key.size());
    size_t end = value.size();
    for (std::string_view next : {", accessed_by=", ", type=", ", tag_safe="})
        end = std::min(end, value.find(next));
    return trim(value.substr(0, end));
}

/// First `L[...]` / `G[...]` in an expression with its attribute and subscript chain (not a trailing call).
std::string sourceInExpression(std::string_view text) {
    for (size_t i = 0; i + 1 < text.size(); ++i) {
        if ((text[i] != 'L' && text[i] != 'G') || text[i + 1] != '[') continue;
        if (i > 0 && (scan::isIdentChar(text[i - 1]) || text[i - 1] == '.')) continue;
        size_t end = scan::findClosingBracket(text, i + 1);
        if (end == std::string_view::npos) return {};
        size_t keep = end + 1;
        size_t pos = keep;
        while (pos < text.size()) {
            if (text[pos] == '[') {
                size_t close = scan::findClosingBracket(text, pos);
                if (close == std::string_view::npos) break;
                pos = keep = close + 1;
            } else if (text[pos] == '.' && pos + 1 < text.size() && scan::isIdentStart(text[pos + 1])) {
                size_t attrEnd = pos + 1;
                while (attrEnd < text.size() && scan::isIdentChar(text[attrEnd])) ++attrEnd;
                if (attrEnd < text.size() && text[attrEnd] == '(') break;  // a method call is not a source
                pos = keep = attrEnd;
            } else {
                break;
            }
        }
        return std::string(text.substr(i, keep - i));
    }
    return {};
}

/// Top-level arguments of the first call `fn(...)` in `text`.
std::vector<std::string_view> callArguments(std::string_view text, std::string_view fn) {
    std::vector<std::string_view> args;
    size_t pos = text.find(fn);
    while (pos != std::string_view::npos && pos > 0 && scan::isIdentChar(text[pos - 1])) pos = text.find(fn, pos + 1);
    if (pos == std::string_view::npos || pos + fn.size() >= text.size() || text[pos + fn.size()] != '(') return args;
    size_t open = pos + fn.size();
    size_t close = scan::findClosingBracket(text, open);
    std::string_view inner = text.substr(open + 1, close == std::string_view::npos ? std::string_view::npos
                                                                                    : close - open - 1);
    scan::forEachTopLevelPiece(inner, ',', [&args](std::string_view piece) {
        if (!piece.empty()) args.push_back(piece);
    });
    return args;
}

/// "<class 'torch.Tensor'>" -> "torch.Tensor", "<module 'torch' from '/x'>" -> "module torch".
std::string readableType(std::string_view text) {
    size_t pos = text.find("type=<");
    if (pos == std::string_view::npos) return {};
    std::string_view value = text.substr(pos + 6);
    int depth = 1;  // reprs nest: <function <lambda> at 0x7f...>
    for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '<') ++depth;
        if (value[i] == '>' && --depth == 0) {
            value = value.substr(0, i);
            break;
        }
    }
    if (size_t from = value.find(" from '"); from != std::string_view::npos) value = value.substr(0, from);
    std::string out;
    for (char c : value)
        if (c != '\'') out.push_back(c);
    if (out.starts_with("class ")) out.erase(0, 6);
    return out;
}

/// Splits "lhs <op> rhs" at the first top-level `op`.
std::optional<std::pair<std::string_view, std::string_view>> splitBinary(std::string_view text, std::string_view op) {
    size_t pos = scan::findTopLevel(text, op);
    if (pos == std::string_view::npos) return std::nullopt;
    return std::make_pair(trim(text.substr(0, pos)), trim(text.substr(pos + op.size())));
}

std::string readable(std::string_view text) { return scan::stripLocalScope(trim(text)); }

std::string describeTensorMatch(const Guard& guard) {
    std::vector<std::string_view> args = callArguments(guard.text, "check_tensor");
    std::string subject = readable(args.empty() ? std::string_view(guard.source) : args.front());
    std::string cls = "Tensor";
    std::string dtype, size, stride, requiresGrad, backend, deviceIndex;
    std::vector<std::string> others;
    for (size_t i = 1; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg.starts_with("DispatchKeySet(")) {
            // The first dispatch key is the backend: CPU, CUDA, XPU, MPS, Meta...
            for (size_t k = 15; k < arg.size() && scan::isIdentChar(arg[k]); ++k)
                backend.push_back(static_cast<char>(arg[k] >= 'A' && arg[k] <= 'Z' ? arg[k] - 'A' + 'a' : arg[k]));
        } else if (size_t eq = arg.find('='); eq != std::string_view::npos) {
            std::string_view key = trim(arg.substr(0, eq));
            std::string value(trim(arg.substr(eq + 1)));
            // None marks a dimension the tensor guard leaves to the symbolic-shape guards.
            for (size_t p = value.find("None"); p != std::string::npos && key != "device"; p = value.find("None", p))
                value.replace(p, 4, "dynamic");
            if (key == "device") deviceIndex = value == "None" ? "" : value;
            else if (key == "size") size = "size " + value;
            else if (key == "stride") stride = "stride " + value;
            else if (key == "requires_grad") requiresGrad = "requires_grad=" + value;
            else others.push_back(std::string(key) + "=" + value);
        } else if (arg.starts_with("torch.")) {
            dtype = "dtype " + std::string(arg);
        } else {
            cls = std::string(arg);
        }
    }
    std::string device = backend.empty() ? "" : "device " + backend + (deviceIndex.empty() ? "" : ":" + deviceIndex);
    std::string out = subject + " is a " + cls;
    bool first = true;
    for (const std::string& fact : {dtype, size, stride, requiresGrad, device}) {
        if (fact.empty()) continue;
        out += (first ? " with " : ", ") + fact;
        first = false;
    }
    for (const std::string& fact : others) out += ", " + fact;
    return out;
}

std::string describeManager(const Guard& guard) {
    std::string_view text = guard.text;
    if (text.starts_with("RootGuardManager")) return "root of the guard tree: every check below must pass";
    if (text.starts_with("KeyValueManager")) {
        std::string_view detail = trim(text.substr(15));
        return "a key/value pair of the dict" + (detail.empty() ? std::string() : " (" + std::string(detail) + ")");
    }
    std::string source = readable(guard.source);
    if (text.starts_with("KeyManager")) return "the key " + source + " of a dict entry";
    if (text.starts_with("ValueManager")) return "the value " + source + " of a dict entry";
    std::string type = readableType(text);
    std::string out = (text.starts_with("Dict") ? "checks on dict " : "checks on ") + source;
    if (!type.empty()) out += " (type " + type + ")";
    return out;
}

std::string describeGlobalState(std::string_view text) {
    std::string out = "global torch state (grad mode, autocast, default dtype, deterministic algorithms, threads) "
                      "is as at compile time";
    size_t pos = text.find('{');
    if (pos == std::string_view::npos) return out;
    nlohmann::json state = nlohmann::json::parse(text.substr(pos), nullptr, false);
    if (state.is_object() && state.contains("grad_mode") && state["grad_mode"].is_boolean())
        out += state["grad_mode"].get<bool>() ? "; grad mode on" : "; grad mode off";
    return out;
}

std::string describeLength(std::string_view text, std::string_view what) {
    if (text.starts_with("not ")) return what.empty() ? readable(text.substr(4)) + " is empty"
                                                      : std::string(what) + " " + readable(text.substr(4)) + " is empty";
    auto parts = splitBinary(text, " == ");
    if (!parts) return "length of " + readable(text);
    std::string_view subject = parts->first;
    if (subject.starts_with("len(") && subject.ends_with(')')) subject = subject.substr(4, subject.size() - 5);
    if (what.empty()) return readable(subject) + " has length " + std::string(parts->second);
    std::string_view count = parts->second;
    return std::string(what) + " " + readable(subject) + " has " + std::string(count) + (count == "1" ? " entry" : " entries");
}

std::string kindFromCode(std::string_view code) {
    code = trim(code);
    if (code.starts_with("check_tensor(")) return "TENSOR_MATCH";
    if (code.starts_with("___check_type_id(")) return "TYPE_MATCH";
    if (code.starts_with("___check_obj_id(")) return "ID_MATCH";
    if (code.starts_with("hasattr(")) return code.ends_with("== False") ? "NO_HASATTR" : "HASATTR";
    if (code.starts_with("utils_device.CURRENT_DEVICE")) return "DEFAULT_DEVICE";
    if (code.find("___check_global_state()") != std::string_view::npos) return "GLOBAL_STATE";
    if (code.find("___check_torch_function_mode_stack()") != std::string_view::npos) return "TORCH_FUNCTION_MODE_STACK";
    if (code == "___is_grad_enabled()" || code == "not ___is_grad_enabled()") return "GRAD_MODE";
    if (code.starts_with("check_no_aliasing(")) return "NO_TENSOR_ALIASING";
    if (code.find("___dict_contains(") != std::string_view::npos) return "DICT_CONTAINS";
    if (code.starts_with("___dict_version(")) return "DICT_VERSION";
    if (code.starts_with("___tuple_iterator_len(")) return "TUPLE_ITERATOR_LEN";
    if (code.starts_with("len(") && code.find(" == ") != std::string_view::npos) return "LENGTH_CHECK";
    if (code.ends_with(" is None")) return "NONE_MATCH";
    if (code.ends_with(" == True")) return "TRUE_MATCH";
    if (code.ends_with(" == False")) return "FALSE_MATCH";
    auto equals = splitBinary(code, " == ");
    if (equals && (equals->first.starts_with("L[") || equals->first.starts_with("G[")) &&
        equals->second.find(' ') == std::string_view::npos)
        return "EQUALS_MATCH";
    return "LAMBDA_GUARD";
}

std::string userCodeOf(const nlohmann::json& userStack) {
    if (!userStack.is_array() || userStack.empty()) return {};
    const nlohmann::json& frame = userStack.back();
    if (!frame.is_object()) return {};
    if (auto loc = frame.find("loc"); loc != frame.end() && loc->is_string() && !loc->get<std::string>().empty())
        return loc->get<std::string>();
    std::string out;
    if (auto line = frame.find("line"); line != frame.end() && line->is_number_integer())
        out = "line " + std::to_string(line->get<int64_t>());
    if (auto name = frame.find("name"); name != frame.end() && name->is_string())
        out += (out.empty() ? "in " : " in ") + name->get<std::string>();
    return out;
}

}  // namespace

bool isGuardManagerKind(std::string_view kind) { return kind == kGuardManagerKind; }

std::vector<Guard> parseCppGuardTree(std::string_view text) {
    std::vector<Guard> guards;
    std::vector<std::string> managerSources;  // by depth: the source of the manager open at that depth
    scan::LineReader reader(text);
    std::string_view line;
    while (reader.next(line)) {
        std::optional<TreeLine> tree = splitTreeLine(line);
        if (!tree) {
            std::string_view rest = trim(line);
            if (rest.empty() || rest == "TREE_GUARD_MANAGER:" || rest.starts_with("Guard latency")) continue;
            // Guard code can itself contain newlines; such lines belong to the guard above.
            if (!guards.empty() && !isGuardManagerKind(guards.back().kind))
                guards.back().text += "\n" + std::string(trimRight(line));
            continue;
        }
        Guard guard;
        guard.depth = tree->depth;
        std::string_view content = tree->content;
        size_t headEnd = 0;
        while (headEnd < content.size() && content[headEnd] != ':' && content[headEnd] != ' ') ++headEnd;
        std::string_view head = content.substr(0, headEnd);
        const auto depth = static_cast<size_t>(tree->depth);
        if (managerSources.size() > depth) managerSources.resize(depth);

        if (head.ends_with("Manager")) {
            guard.kind = std::string(kGuardManagerKind);
            guard.text = std::string(content);
            guard.source = std::string(managerField(content, "source="));
            managerSources.resize(depth + 1);
            managerSources.back() = guard.source;
        } else {
            std::string_view expr;
            if (headEnd < content.size() && content[headEnd] == ':' && isUpperWord(head)) {
                guard.kind = std::string(head);
                expr = trimLeft(content.substr(headEnd + 1));
            } else if (isUpperWord(content)) {
                guard.kind = std::string(content);
            } else {
                guard.kind = "UNKNOWN";
                expr = content;
            }
            size_t comment = scan::scanCodeLine(expr).commentPos;
            guard.text = std::string(trimRight(expr.substr(0, comment)));
            if (comment != std::string_view::npos) guard.userCode = std::string(trim(expr.substr(comment + 1)));
            for (auto it = managerSources.rbegin(); it != managerSources.rend() && guard.source.empty(); ++it)
                guard.source = *it;
            if (guard.source.empty()) guard.source = sourceInExpression(guard.text);
        }
        guards.push_back(std::move(guard));
    }
    for (size_t i = 0; i < guards.size(); ++i) {
        guards[i].index = static_cast<int>(i);
        guards[i].checks = describeGuard(guards[i]);
    }
    return guards;
}

std::optional<double> guardLatencyUs(std::string_view text) {
    constexpr std::string_view kLabel = "Guard latency = ";
    size_t pos = text.rfind(kLabel);
    if (pos == std::string_view::npos) return std::nullopt;
    std::string_view number = trimLeft(text.substr(pos + kLabel.size()));
    double value = 0;
    auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || ptr == number.data()) return std::nullopt;
    return value;
}

std::vector<Guard> parseGuardListJson(std::string_view payload) {
    std::vector<nlohmann::json> items;
    nlohmann::json doc = nlohmann::json::parse(payload, nullptr, false);
    if (!doc.is_discarded() && doc.is_array()) {
        for (auto& item : doc) items.push_back(std::move(item));
    } else {
        // One item per line is how PyTorch writes lists, so a damaged list can still be read line by line.
        scan::LineReader reader(payload);
        std::string_view line;
        while (reader.next(line)) {
            line = trim(line);
            if (line.ends_with(',')) line.remove_suffix(1);
            if (!line.starts_with('{')) continue;
            nlohmann::json item = nlohmann::json::parse(line, nullptr, false);
            if (!item.is_discarded()) items.push_back(std::move(item));
        }
    }

    std::vector<Guard> guards;
    for (const nlohmann::json& item : items) {
        if (!item.is_object()) continue;
        auto code = item.find("code");
        if (code == item.end() || !code->is_string()) continue;
        Guard guard;
        guard.index = static_cast<int>(guards.size());
        guard.text = code->get<std::string>();
        guard.kind = kindFromCode(guard.text);
        guard.source = sourceInExpression(guard.text);
        if (auto userStack = item.find("user_stack"); userStack != item.end()) guard.userCode = userCodeOf(*userStack);
        guard.checks = describeGuard(guard);
        guards.push_back(std::move(guard));
    }
    return guards;
}

std::string describeGuard(const Guard& guard) {
    const std::string_view kind = guard.kind;
    const std::string_view text = guard.text;
    const std::string subject = readable(guard.source);
    if (isGuardManagerKind(kind)) return describeManager(guard);
    if (kind == "TENSOR_MATCH") return describeTensorMatch(guard);
    if (kind == "TYPE_MATCH") {
        std::vector<std::string_view> args = callArguments(text, "___check_type_id");
        std::string who = args.empty() ? subject : readable(args.front());
        std::string type = readableType(text);
        return "type of " + who + " is exactly " + (type.empty() ? "the type seen at compile time" : type);
    }
    if (kind == "ID_MATCH") {
        std::vector<std::string_view> args = callArguments(text, "___check_obj_id");
        std::string who = args.empty() ? subject : readable(args.front());
        std::string type = readableType(text);
        return who + " is the same object as at compile time" + (type.empty() ? "" : " (" + type + ")");
    }
    if (kind == "EQUALS_MATCH" || kind == "CONSTANT_MATCH") {
        if (auto parts = splitBinary(text, " == ")) return readable(parts->first) + " equals " + std::string(parts->second);
        return subject + " equals the value seen at compile time";
    }
    if (kind == "TRUE_MATCH" || kind == "FALSE_MATCH" || kind == "NONE_MATCH") {
        std::string_view value = kind == "TRUE_MATCH" ? "True" : kind == "FALSE_MATCH" ? "False" : "None";
        auto parts = splitBinary(text, " == ");
        if (!parts) parts = splitBinary(text, " is ");
        return (parts ? readable(parts->first) : subject) + " is " + std::string(value);
    }
    if (kind == "LENGTH_CHECK") return describeLength(text, "");
    if (kind == "DICT_LENGTH") return describeLength(text, "dict");
    if (kind == "GLOBAL_STATE") return describeGlobalState(text);
    if (kind == "DEFAULT_DEVICE") {
        auto parts = splitBinary(text, " == ");
        return "default device (torch.set_default_device) is still " + std::string(parts ? parts->second : "unchanged");
    }
    if (kind == "TORCH_FUNCTION_MODE_STACK") return "the stack of active TorchFunctionModes is as at compile time";
    if (kind == "GRAD_MODE") return text.starts_with("not ") ? "grad mode is disabled" : "grad mode is enabled";
    if (kind == "NO_HASATTR" || kind == "HASATTR") {
        std::vector<std::string_view> args = callArguments(text, "hasattr");
        std::string who = args.empty() ? subject : readable(args.front());
        std::string attribute = args.size() > 1 ? std::string(args[1]) : "an attribute";
        return who + (kind == "NO_HASATTR" ? " has no attribute " : " has attribute ") + attribute;
    }
    if (kind == "DICT_CONTAINS") {
        std::vector<std::string_view> args = callArguments(text, "___dict_contains");
        if (args.size() < 2) return "dict membership: " + readable(text);
        bool negated = text.starts_with("not ");
        return readable(args[1]) + (negated ? " has no key " : " contains key ") + std::string(args[0]);
    }
    if (kind == "NO_TENSOR_ALIASING") {
        std::vector<std::string_view> args = callArguments(text, "check_no_aliasing");
        if (args.empty()) return "input tensors do not alias each other";
        std::string names;
        for (std::string_view arg : args) names += (names.empty() ? "" : ", ") + readable(arg);
        return "tensors " + names + " do not alias each other";
    }
    if (kind == "OBJECT_ALIASING") {
        if (auto parts = splitBinary(text, " is ")) return readable(parts->first) + " and " + readable(parts->second) + " are the same object";
    }
    if (kind == "DICT_VERSION") return "dict " + subject + " has not been modified";
    if (kind == "WEAKREF_ALIVE") return subject + " is still alive";
    if (kind == "LAMBDA_GUARD") return text.empty() ? "a Python condition holds" : "condition holds: " + readable(text);
    return text.empty() ? std::string(kind) : std::string(kind) + ": " + readable(text);
}

}  // namespace traces
