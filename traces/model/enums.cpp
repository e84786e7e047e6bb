// String forms of the model's enums, as stored in the trace file and printed in reports.
#include "model/trace_model.h"

#include <array>
#include <utility>

namespace traces {
namespace {

constexpr std::array<std::pair<SessionKind, const char*>, 2> kSessionKindNames = {{
    {SessionKind::ImportedLog, "imported_log"},
    {SessionKind::EngineRun, "engine_run"},
}};

constexpr std::array<std::pair<CompileStatus, const char*>, 5> kStatusNames = {{
    {CompileStatus::Ok, "ok"},
    {CompileStatus::Failed, "failed"},
    {CompileStatus::Restarted, "restarted"},
    {CompileStatus::Unknown, "unknown"},
    {CompileStatus::Empty, "empty"},
}};

constexpr std::array<std::pair<GraphKind, const char*>, 11> kGraphKindNames = {{
    {GraphKind::Dynamo, "dynamo"},
    {GraphKind::AotJoint, "aot_joint"},
    {GraphKind::AotForward, "aot_forward"},
    {GraphKind::AotBackward, "aot_backward"},
    {GraphKind::AotInference, "aot_inference"},
    {GraphKind::PreGrad, "pre_grad"},
    {GraphKind::PostGrad, "post_grad"},
    {GraphKind::JointPass, "joint_pass"},
    {GraphKind::CompiledAutograd, "compiled_autograd"},
    {GraphKind::DdpSplit, "ddp_split"},
    {GraphKind::Other, "other"},
}};

template <class Enum, size_t N>
const char* nameOf(const std::array<std::pair<Enum, const char*>, N>& table, Enum value) {
    for (const auto& [e, name] : table)
        if (e == value) return name;
    return "?";
}

template <class Enum, size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, const char*>, N>& table, std::string_view text) {
    for (const auto& [e, name] : table)
        if (text == name) return e;
    return std::nullopt;
}

}  // namespace

const char* toString(SessionKind kind) { return nameOf(kSessionKindNames, kind); }
std::optional<SessionKind> sessionKindFromString(std::string_view text) { return valueOf(kSessionKindNames, text); }
const char* toString(CompileStatus status) { return nameOf(kStatusNames, status); }
std::optional<CompileStatus> compileStatusFromString(std::string_view text) { return valueOf(kStatusNames, text); }
const char* toString(GraphKind kind) { return nameOf(kGraphKindNames, kind); }
std::optional<GraphKind> graphKindFromString(std::string_view text) { return valueOf(kGraphKindNames, text); }

}  // namespace traces
