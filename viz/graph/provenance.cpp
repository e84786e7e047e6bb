// Provenance modules and the links between their lines (see provenance.h).
#include "graph/provenance.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "graph/fusion_map.h"
#include "parse/text_scan.h"

namespace viz {
namespace {

using traces::scan::isIdentChar;
using traces::scan::isIdentStart;

std::string_view trimmedLeft(std::string_view line) {
    size_t start = line.find_first_not_of(" \t");
    return start == std::string_view::npos ? std::string_view() : line.substr(start);
}

template <typename Visit>
void forEachLine(std::string_view text, Visit visit) {
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        visit(text.substr(start, end - start));
        if (end == text.size()) break;
        start = end + 1;
    }
}

/// The identifier a line starts with, "" when it starts with none.
std::string_view leadingIdentifier(std::string_view line) {
    if (line.empty() || !isIdentStart(line[0])) return {};
    size_t end = 1;
    while (end < line.size() && isIdentChar(line[end])) ++end;
    return line.substr(0, end);
}

void addAll(std::set<std::string>& into, const std::map<std::string, std::vector<std::string>>& map, const std::string& key) {
    auto found = map.find(key);
    if (found != map.end()) into.insert(found->second.begin(), found->second.end());
}

void invert(const std::map<std::string, std::vector<std::string>>& from, std::map<std::string, std::vector<std::string>>& to) {
    for (const auto& [key, values] : from)
        for (const std::string& value : values) {
            std::vector<std::string>& list = to[value];
            if (std::find(list.begin(), list.end(), key) == list.end()) list.push_back(key);
        }
}

/// Without the artifact: each kernel's fusion comments say which pre-grad ("source") and post-grad nodes it
/// computes; a pre-grad node maps to the post-grad nodes of the kernels that name it.
ProvenanceMappings inferredMappings(const traces::OutputCode& code) {
    ProvenanceMappings mappings;
    for (const traces::Kernel& kernel : code.kernels) {
        if (kernel.postGradNodes.empty()) continue;
        mappings.codeToPost[kernel.name] = kernel.postGradNodes;
        for (const std::string& source : kernel.sourceNodes) {
            std::vector<std::string>& post = mappings.preToPost[source];
            for (const std::string& node : kernel.postGradNodes)
                if (std::find(post.begin(), post.end(), node) == post.end()) post.push_back(node);
        }
    }
    invert(mappings.preToPost, mappings.postToPre);
    invert(mappings.codeToPost, mappings.postToCode);
    return mappings;
}

LinkedText graphText(const traces::Graph* graph, std::string title) {
    LinkedText text;
    text.title = std::move(title);
    if (!graph) return text;
    text.text = graph->text;
    text.anchors = fxLineAnchors(text.text);
    return text;
}

std::string roleTitle(const traces::OutputCode& code) {
    CodeRole role = codeRoleOf(code);
    if (role != CodeRole::Unknown) return toString(role);
    size_t slash = code.filename.rfind('/');
    return slash == std::string::npos ? code.filename : code.filename.substr(slash + 1);
}

}  // namespace

ProvenanceMappings parseProvenanceMappings(std::string_view json) {
    ProvenanceMappings mappings;
    nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) return mappings;
    auto read = [&](const char* field, std::map<std::string, std::vector<std::string>>& into) {
        auto found = parsed.find(field);
        if (found == parsed.end() || !found->is_object()) return;
        for (const auto& [key, values] : found->items()) {
            if (!values.is_array()) continue;
            std::vector<std::string>& list = into[key];
            for (const nlohmann::json& value : values)
                if (value.is_string()) list.push_back(value.get<std::string>());
        }
    };
    read("preToPost", mappings.preToPost);
    read("postToPre", mappings.postToPre);
    read("cppCodeToPost", mappings.codeToPost);
    read("postToCppCode", mappings.postToCode);
    return mappings;
}

std::string_view kernelOfCodeKey(std::string_view key) {
    size_t colon = key.rfind(':');
    return colon == std::string_view::npos ? key : key.substr(0, colon);
}

std::vector<std::string> fxLineAnchors(std::string_view text) {
    std::vector<std::string> anchors;
    forEachLine(text, [&](std::string_view line) {
        std::string_view body = trimmedLeft(line);
        std::string_view name = leadingIdentifier(body);
        std::string_view rest = body.substr(name.size());
        bool names = !name.empty() && name != "def" && name != "class" && name != "return" &&
                     (rest.starts_with(": \"") || rest.starts_with(" = ") || rest.starts_with(": "));
        anchors.emplace_back(names ? name : std::string_view());
    });
    return anchors;
}

std::vector<std::string> outputCodeLineAnchors(std::string_view source) {
    std::vector<std::string_view> lines;
    forEachLine(source, [&](std::string_view line) { lines.push_back(line); });
    std::vector<std::string> anchors(lines.size());
    constexpr std::string_view kHandles = "# [Provenance debug handles] ";
    std::string pendingCall;  // the debug handle written above the next call
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view body = trimmedLeft(lines[i]);
        if (body.starts_with(kHandles)) {
            pendingCall = std::string(body.substr(kHandles.size()));
            anchors[i] = pendingCall;
            continue;
        }
        // A definition: "NAME = async_compile.triton('NAME', '''" up to the line that closes the quotes.
        std::string_view name = leadingIdentifier(body);
        if (!name.empty() && body.substr(name.size()).starts_with(" = async_compile.") && body.ends_with("'''")) {
            // Its comment block above (kernel path, source nodes, graph fragment) belongs to it too.
            for (size_t above = i; above-- > 0 && trimmedLeft(lines[above]).starts_with("#") && anchors[above].empty();)
                anchors[above] = name;
            size_t end = i + 1;
            while (end < lines.size() && !trimmedLeft(lines[end]).starts_with("'''")) ++end;
            if (end == lines.size()) end = i;  // unterminated: the line alone
            for (size_t line = i; line <= end && line < lines.size(); ++line) anchors[line] = name;
            i = end;
            continue;
        }
        if (!pendingCall.empty() && !body.starts_with("#")) {
            // The call itself, after any stream set-up, names the kernel of the handle.
            std::string_view kernel = kernelOfCodeKey(pendingCall);
            if (body.find(kernel) != std::string_view::npos) {
                anchors[i] = pendingCall;
                pendingCall.clear();
            }
            continue;
        }
        size_t run = body.find(".run(");
        if (run != std::string_view::npos && leadingIdentifier(body).size() == run) anchors[i] = body.substr(0, run);
    }
    return anchors;
}

const LinkedText& ProvenanceModule::text(ProvenancePane pane) const {
    switch (pane) {
        case ProvenancePane::Pre: return pre;
        case ProvenancePane::Post: return post;
        case ProvenancePane::Code: return code;
    }
    return pre;
}

ProvenanceSelection ProvenanceModule::select(ProvenancePane pane, const std::string& anchor) const {
    ProvenanceSelection selection;
    if (anchor.empty()) return selection;
    switch (pane) {
        case ProvenancePane::Pre:
            selection.pre.insert(anchor);
            addAll(selection.post, mappings.preToPost, anchor);
            for (const std::string& node : selection.post) addAll(selection.code, mappings.postToCode, node);
            break;
        case ProvenancePane::Post:
            selection.post.insert(anchor);
            addAll(selection.pre, mappings.postToPre, anchor);
            addAll(selection.code, mappings.postToCode, anchor);
            break;
        case ProvenancePane::Code: {
            // A definition stands for every call of its kernel; a call for itself.
            bool definition = anchor.find(':') == std::string::npos;
            for (const auto& [key, nodes] : mappings.codeToPost) {
                if (key != anchor && !(definition && kernelOfCodeKey(key) == anchor)) continue;
                selection.code.insert(key);
                selection.post.insert(nodes.begin(), nodes.end());
            }
            selection.code.insert(anchor);
            for (const std::string& node : selection.post) addAll(selection.pre, mappings.postToPre, node);
            break;
        }
    }
    return selection;
}

bool ProvenanceModule::lineSelected(const ProvenanceSelection& selection, ProvenancePane pane, const std::string& anchor) {
    if (anchor.empty()) return false;
    switch (pane) {
        case ProvenancePane::Pre: return selection.pre.count(anchor) > 0;
        case ProvenancePane::Post: return selection.post.count(anchor) > 0;
        case ProvenancePane::Code: {
            if (selection.code.count(anchor)) return true;
            // A kernel's definition lights up with any of its calls.
            if (anchor.find(':') != std::string::npos) return false;
            auto next = selection.code.lower_bound(anchor + ":");
            return next != selection.code.end() && kernelOfCodeKey(*next) == anchor;
        }
    }
    return false;
}

std::vector<ProvenanceModule> provenanceModulesOf(const traces::TraceData& trace,
                                                  const std::vector<traces::RowId>& compileIds) {
    auto ofCompile = [&](const std::optional<traces::RowId>& id) {
        return id && std::find(compileIds.begin(), compileIds.end(), *id) != compileIds.end();
    };
    const traces::Graph* pre = nullptr;
    const traces::Graph* dynamo = nullptr;
    std::vector<const traces::Graph*> postGrad;
    for (const traces::Graph& graph : trace.graphs) {
        if (!ofCompile(graph.compileId)) continue;
        if (graph.kind == traces::GraphKind::Dynamo && !dynamo) dynamo = &graph;
        if (graph.kind == traces::GraphKind::PreGrad && (!pre || !graph.name.starts_with("before_"))) pre = &graph;
        if (graph.kind == traces::GraphKind::PostGrad && !graph.name.starts_with("before_")) postGrad.push_back(&graph);
    }
    if (!pre) pre = dynamo;
    std::vector<const traces::OutputCode*> codes;
    for (const traces::OutputCode& code : trace.outputCode)
        if (ofCompile(code.compileId)) codes.push_back(&code);
    std::sort(codes.begin(), codes.end(), [](auto* a, auto* b) { return a->seq < b->seq; });

    std::vector<ProvenanceModule> modules;
    for (size_t c = 0; c < codes.size(); ++c) {
        const traces::OutputCode& code = *codes[c];
        int64_t previousSeq = c > 0 ? codes[c - 1]->seq : INT64_MIN;
        int64_t nextSeq = c + 1 < codes.size() ? codes[c + 1]->seq : INT64_MAX;
        ProvenanceModule module;
        module.title = roleTitle(code);
        // The post-grad graph Inductor logged just before this code, and the provenance record just after it.
        const traces::Graph* post = nullptr;
        for (const traces::Graph* graph : postGrad)
            if (graph->seq > previousSeq && graph->seq < code.seq) post = graph;
        for (const traces::Artifact& artifact : trace.artifacts) {
            if (!ofCompile(artifact.compileId) || artifact.name != kProvenanceMappingsArtifact || artifact.seq < code.seq ||
                artifact.seq > nextSeq)
                continue;
            module.mappings = parseProvenanceMappings(artifact.payload);
            module.fromArtifact = !module.mappings.empty();
            break;
        }
        if (!module.fromArtifact) module.mappings = inferredMappings(code);
        module.pre = graphText(pre, pre && pre->kind == traces::GraphKind::PreGrad ? "pre-grad graph" : "Dynamo graph");
        module.post = graphText(post, "post-grad graph (" + module.title + ")");
        module.code.title = "output code (" + module.title + ")";
        module.code.text = code.source;
        module.code.anchors = outputCodeLineAnchors(code.source);
        modules.push_back(std::move(module));
    }
    return modules;
}

}  // namespace viz
