// The in-memory trace model: plain rows of one trace file, as the report writers and the GUI read them.
// Rows are handed to a traces::RowSink and loaded by traces::loadTrace; nothing here knows SQLite or ImGui.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace traces {

using RowId = int64_t;

/// One frame of a Python stack: outermost first, as Python's traceback prints them.
struct Frame {
    std::string file;
    int line = 0;
    std::string function;
    std::string source;  ///< text of that source line when known ("loc" in TORCH_TRACE)

    bool operator==(const Frame&) const = default;
};
using Stack = std::vector<Frame>;

/// `[frame/compile]` plus attempt and compiled-autograd id, as PyTorch's CompileId and TraceId.
struct CompileKey {
    std::optional<int> autogradId;
    std::optional<int> frameId;
    std::optional<int> frameCompileId;
    int attempt = 0;

    /// PyTorch's own form: "0/1", "0/1_2", "!0/3/0", "!0".
    std::string str() const;
    /// tlparse's display form: "[0/1]", "[0/1_2]", "[-/-]".
    std::string display() const;
    bool operator==(const CompileKey&) const = default;
    auto operator<=>(const CompileKey&) const = default;
};

/// Parses "0/1", "0/1_2", "[0/1]", "!0/3/0", "!0"; nullopt for anything else.
std::optional<CompileKey> parseCompileKey(std::string_view text);

enum class SessionKind { ImportedLog, EngineRun };
const char* toString(SessionKind kind);
std::optional<SessionKind> sessionKindFromString(std::string_view text);

struct Session {
    RowId id = 0;
    SessionKind kind = SessionKind::ImportedLog;
    std::string sourceFile;  ///< the log's (or script's) file name, no directory
    std::string sourcePath;  ///< as given on the command line
    std::optional<int> rank;
    std::string torchVersion;
    int64_t processId = 0;
    std::string startedAt;   ///< timestamp of the first record, "MM-DD HH:MM:SS.mmm" (logs carry no year)
    int64_t bytes = 0;
    int64_t records = 0;
    int64_t malformedRecords = 0;
};

/// A record of the input that could not be imported as it stood; `line`/`column` are 1-based.
struct ImportIssue {
    RowId sessionId = 0;
    int64_t line = 0;
    int column = 0;
    std::string kind;     ///< bad_header, bad_json, md5_mismatch, truncated_payload, orphan_payload, empty_file, ...
    std::string message;
};

/// Where compiles come from: the user stack at `dynamo_start` (Dynamo-internal frames stripped).
struct CompileSite {
    RowId id = 0;
    RowId sessionId = 0;
    std::string function;
    std::string file;
    int line = 0;
    Stack userStack;
};

enum class CompileStatus {
    Ok,         ///< produced guarded code
    Failed,     ///< compilation_metrics carried a fail_type
    Restarted,  ///< this attempt was thrown away and analysis restarted (a later attempt exists)
    Unknown,    ///< no compilation_metrics was recorded (crash, or still running)
    Empty,      ///< finished without a graph: graph_op_count 0 or missing (frame skipped, or no ops captured)
};
const char* toString(CompileStatus status);
std::optional<CompileStatus> compileStatusFromString(std::string_view text);

/// Seconds spent in one named compile phase ("entire_frame_compile", "backend_compile", ...).
struct PhaseTime {
    std::string phase;
    double seconds = 0;
};

/// One analysis attempt of one compile id.
struct Compile {
    RowId id = 0;
    RowId sessionId = 0;
    std::optional<RowId> siteId;
    CompileKey key;
    int64_t seq = 0;        ///< order of first appearance in the session
    int64_t line = 0;       ///< input line of the first record (0 for engine runs)
    bool started = false;   ///< a dynamo_start record opened it
    CompileStatus status = CompileStatus::Unknown;
    std::string function;   ///< co_name
    std::string file;       ///< co_filename
    int firstLine = 0;      ///< co_firstlineno
    std::string failType;
    std::string failReason;
    std::string failUserFile;
    int failUserLine = 0;
    std::vector<std::string> restartReasons;
    std::vector<std::string> recompileReasons;  ///< "0/0: tensor 'x' size mismatch ..." as logged
    std::optional<int64_t> cacheSize;
    std::optional<int64_t> accumulatedCacheSize;
    std::optional<int64_t> guardCount;
    std::optional<int64_t> shapeEnvGuardCount;
    std::optional<int64_t> opCount;
    std::optional<int64_t> nodeCount;
    std::optional<int64_t> inputCount;
    std::optional<double> startTime;  ///< epoch seconds
    std::vector<PhaseTime> phases;
    std::string metricsJson;  ///< the compilation_metrics record's JSON, verbatim
};

/// Which stage of the pipeline a graph comes from.
enum class GraphKind {
    Dynamo, AotJoint, AotForward, AotBackward, AotInference, PreGrad, PostGrad, JointPass,
    CompiledAutograd, DdpSplit, Other
};
const char* toString(GraphKind kind);
std::optional<GraphKind> graphKindFromString(std::string_view text);

struct GraphNode {
    int index = 0;
    std::string name;
    std::string op;        ///< placeholder, call_function, call_method, call_module, get_attr, output
    std::string target;    ///< torch.sin, aten.mul.Tensor, sum, self.fc1, operator.mul ...
    std::string args;      ///< argument text as printed
    std::vector<std::string> inputs;  ///< names of earlier nodes the arguments use
    std::string shape;     ///< "[8, 16]" (may be symbolic: "[8, s27]")
    std::string dtype;     ///< "f32", "bf16", "Sym", ...
    std::string stride;
    std::string device;
    std::string sourceFile;  ///< user source line the node came from
    int sourceLine = 0;
    std::string sourceFunction;
    std::string sourceCode;
};

struct Graph {
    RowId id = 0;
    RowId sessionId = 0;
    std::optional<RowId> compileId;
    int64_t seq = 0;
    int64_t line = 0;
    GraphKind kind = GraphKind::Other;
    std::string name;      ///< the event or artifact name it came from
    std::string text;      ///< readable FX text
    std::vector<GraphNode> nodes;
};

struct Guard {
    RowId id = 0;
    RowId compileId = 0;
    int index = 0;
    std::string kind;     ///< TENSOR_MATCH, TYPE_MATCH, ID_MATCH, GuardManager, ...
    std::string source;   ///< L['x'], G['flag'], ...
    std::string text;     ///< the guard as printed
    std::string checks;   ///< plain-words description of what it checks
    std::string userCode; ///< user source the guard came from, when printed
    int depth = 0;        ///< depth in the guard tree (0 for flat lists)
};

/// One guard failure that made a compile happen: the entry `failedCompile` rejected the call because of `reason`.
struct GuardFailure {
    RowId id = 0;
    RowId compileId = 0;  ///< the compile this failure triggered
    int index = 0;
    std::string failedCompile;  ///< "0/0"
    std::string reason;         ///< "tensor 'x' size mismatch at index 0. expected 8, actual 16"
};

struct GraphBreak {
    RowId id = 0;
    RowId sessionId = 0;
    std::optional<RowId> compileId;
    int64_t seq = 0;
    int64_t line = 0;
    std::string origin;     ///< "artifact" (dynamo_graph_break_reason) or "restart" (compilation_metrics)
    std::string reason;     ///< the Graph Break Reason text
    std::string breakType;  ///< first line of the reason ("Failed to trace builtin operator")
    std::string userFile;
    int userLine = 0;
    Stack userStack;
    std::string dedupKey;
    std::string text;       ///< the whole message as logged
};

struct Kernel {
    RowId id = 0;
    RowId outputCodeId = 0;
    std::optional<RowId> compileId;
    int index = 0;
    std::string name;
    std::string language;   ///< triton, cpp, cuda, llvm_ir, ...
    std::string source;
    std::string launchConfig;
    std::optional<double> compileSeconds;
    /// Fusion: the Dynamo-graph nodes this kernel computes ("Topologically Sorted Source Nodes" in Inductor's
    /// output) and the post-grad graph nodes fused into it ("Graph fragment"); empty when the log says nothing.
    std::vector<std::string> sourceNodes;
    std::vector<std::string> postGradNodes;
};

struct OutputCode {
    RowId id = 0;
    RowId sessionId = 0;
    std::optional<RowId> compileId;
    int64_t seq = 0;
    int64_t line = 0;
    std::string event;      ///< inductor_output_code, graph_dump, engine
    std::string filename;
    std::string language;   ///< python, cpp
    std::string source;
    std::vector<Kernel> kernels;
};

/// Any record that has no table of its own, kept verbatim.
struct Artifact {
    RowId id = 0;
    RowId sessionId = 0;
    std::optional<RowId> compileId;
    int64_t seq = 0;
    int64_t line = 0;
    std::string event;     ///< the envelope's event key ("artifact", "describe_tensor", an unknown key, ...)
    std::string name;      ///< artifact name, or the event key again
    std::string encoding;  ///< string, json, or empty
    std::string metadata;  ///< the envelope JSON
    std::string payload;
    bool payloadIntact = true;  ///< md5 matched (or there was no md5 to check)
};

/// A timed interval (or instant, durationUs == 0) of compile work; chromium_event pairs become spans.
struct Span {
    RowId id = 0;
    RowId sessionId = 0;
    std::optional<RowId> compileId;
    std::string compileKey;  ///< "0/0" as the event named it
    std::string name;
    std::string category;
    double startUs = 0;
    std::optional<double> durationUs;  ///< empty when the begin event was never closed
    int64_t threadId = 0;
    std::string args;        ///< JSON of the begin and end args merged
};

/// A record whose envelope named no compile id (neither `frame_id` nor `compiled_autograd_id`), `str` records
/// aside: runtime autotuning events, `graph_execution`, export records. tlparse files them under `[-/-]` and lists
/// the context stacks some carry as "unknown stacks". The record itself is stored in its own table as usual.
struct RecordWithoutCompileId {
    RowId id = 0;
    RowId sessionId = 0;
    int64_t seq = 0;
    int64_t line = 0;                ///< 0 in traces imported before schema 3 (rebuilt from rows without a compile)
    std::string event;               ///< the envelope's event key: chromium_event, artifact, ...
    std::string name;                ///< artifact name, chromium event name, or the event key again
    std::optional<RowId> compileId;  ///< the compile its payload names (a chromium event's args.compile_id)
    Stack stack;                     ///< the envelope's `stack`: where the log call came from; empty when none
};

/// A whole trace file loaded for reading. Artifact payloads stay on disk (see TraceReader::artifactPayload).
struct TraceData {
    std::string path;
    int schemaVersion = 0;
    std::vector<Session> sessions;
    std::vector<ImportIssue> issues;
    std::vector<CompileSite> sites;
    std::vector<Compile> compiles;
    std::vector<Graph> graphs;
    std::vector<Guard> guards;
    std::vector<GuardFailure> guardFailures;
    std::vector<GraphBreak> graphBreaks;
    std::vector<OutputCode> outputCode;
    /// Payload left empty by the loader, except for warnings, collective schedules, provenance node mappings and
    /// cache decisions (less their `components`): the texts the views and reports show.
    std::vector<Artifact> artifacts;
    std::vector<Span> spans;
    std::vector<RecordWithoutCompileId> recordsWithoutCompileId;
    /// Per session, the `str` records' table: stacks inside artifact metadata name files by these indexes.
    std::map<RowId, std::vector<std::string>> internedStrings;
};

}  // namespace traces
