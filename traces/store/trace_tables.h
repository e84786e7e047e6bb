// The trace file's tables, one column table per row type: the one definition of every column. New trace files are
// created from these (schema.cpp), the writer inserts and the reader selects through them. A column added here
// also needs a migration in schema.cpp for older files; a test checks that both give the same tables.
#pragma once

#include <string>

#include "store/row_columns.h"

namespace traces {

/// Rows of the tables that the model does not hold as such.
struct MetaEntry {
    std::string key;
    std::string value;
};
struct StoredPayload {  ///< an artifact payload text, stored once per distinct content
    RowId id = 0;
    std::string md5;
    std::string text;
};
struct InternedString {  ///< one entry of a session's `str` table
    RowId sessionId = 0;
    int64_t index = 0;
    std::string text;
};

namespace tables {

inline std::string compileKeyText(const Compile& compile) { return compile.key.str(); }

inline constexpr auto kMeta = makeTable<MetaEntry>(
    "meta", "", "", "key",
    field<&MetaEntry::key>("key", "TEXT PRIMARY KEY"),
    field<&MetaEntry::value>("value", "TEXT NOT NULL"));

inline constexpr auto kSessions = makeTable<Session>(
    "sessions", "", "", "id",
    field<&Session::id>("id", "INTEGER PRIMARY KEY"),
    field<&Session::kind>("kind", "TEXT NOT NULL CHECK (kind IN ('imported_log', 'engine_run'))"),
    field<&Session::sourceFile>("source_file", "TEXT NOT NULL"),
    field<&Session::sourcePath>("source_path", "TEXT NOT NULL"),
    field<&Session::rank>("rank", "INTEGER"),
    field<&Session::torchVersion>("torch_version", "TEXT NOT NULL DEFAULT ''"),
    field<&Session::processId>("process_id", "INTEGER NOT NULL DEFAULT 0"),
    field<&Session::startedAt>("started_at", "TEXT NOT NULL DEFAULT ''"),
    field<&Session::bytes>("bytes", "INTEGER NOT NULL DEFAULT 0"),
    field<&Session::records>("records", "INTEGER NOT NULL DEFAULT 0"),
    field<&Session::malformedRecords>("malformed_records", "INTEGER NOT NULL DEFAULT 0"));

inline constexpr auto kImportIssues = makeTable<ImportIssue>(
    "import_issues", "", "CREATE INDEX import_issues_by_session ON import_issues(session_id, line);\n",
    "session_id, id",
    external<ImportIssue>("id", "INTEGER PRIMARY KEY"),
    field<&ImportIssue::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&ImportIssue::line>("line", "INTEGER NOT NULL"),
    field<&ImportIssue::column>("col", "INTEGER NOT NULL"),
    field<&ImportIssue::kind>("kind", "TEXT NOT NULL"),
    field<&ImportIssue::message>("message", "TEXT NOT NULL"));

inline constexpr auto kInternedStrings = makeTable<InternedString>(
    "interned_strings", "PRIMARY KEY (session_id, idx)", "", "session_id, idx",
    field<&InternedString::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&InternedString::index>("idx", "INTEGER NOT NULL"),
    field<&InternedString::text>("text", "TEXT NOT NULL"));

inline constexpr auto kCompileSites = makeTable<CompileSite>(
    "compile_sites", "", "", "id",
    field<&CompileSite::id>("id", "INTEGER PRIMARY KEY"),
    field<&CompileSite::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&CompileSite::function>("function", "TEXT NOT NULL"),
    field<&CompileSite::file>("file", "TEXT NOT NULL"),
    field<&CompileSite::line>("line", "INTEGER NOT NULL"),
    field<&CompileSite::userStack>("user_stack", "TEXT NOT NULL"));  // JSON array of {file, line, function, source}

inline constexpr auto kCompiles = makeTable<Compile>(
    "compiles", "", "CREATE INDEX compiles_by_session ON compiles(session_id, seq);\n", "session_id, seq, id",
    field<&Compile::id>("id", "INTEGER PRIMARY KEY"),
    field<&Compile::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&Compile::siteId>("site_id", "INTEGER REFERENCES compile_sites(id)"),
    field<&Compile::key, &CompileKey::autogradId>("autograd_id", "INTEGER"),
    field<&Compile::key, &CompileKey::frameId>("frame_id", "INTEGER"),
    field<&Compile::key, &CompileKey::frameCompileId>("frame_compile_id", "INTEGER"),
    field<&Compile::key, &CompileKey::attempt>("attempt", "INTEGER NOT NULL DEFAULT 0"),
    derived<&compileKeyText>("compile_key", "TEXT NOT NULL"),  // PyTorch's form: 0/1, 0/1_2, !0/3/0
    field<&Compile::seq>("seq", "INTEGER NOT NULL"),
    field<&Compile::line>("line", "INTEGER NOT NULL"),
    field<&Compile::started>("started", "INTEGER NOT NULL DEFAULT 0"),  // opened by a dynamo_start record
    field<&Compile::status>("status", "TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'restarted', 'unknown', "
                                      "'empty'))"),
    field<&Compile::function>("function", "TEXT NOT NULL DEFAULT ''"),
    field<&Compile::file>("file", "TEXT NOT NULL DEFAULT ''"),
    field<&Compile::firstLine>("first_line", "INTEGER NOT NULL DEFAULT 0"),
    field<&Compile::failType>("fail_type", "TEXT NOT NULL DEFAULT ''"),
    field<&Compile::failReason>("fail_reason", "TEXT NOT NULL DEFAULT ''"),
    field<&Compile::failUserFile>("fail_user_file", "TEXT NOT NULL DEFAULT ''"),
    field<&Compile::failUserLine>("fail_user_line", "INTEGER NOT NULL DEFAULT 0"),
    field<&Compile::restartReasons>("restart_reasons", "TEXT NOT NULL DEFAULT '[]'"),
    field<&Compile::recompileReasons>("recompile_reasons", "TEXT NOT NULL DEFAULT '[]'"),
    field<&Compile::cacheSize>("cache_size", "INTEGER"),
    field<&Compile::accumulatedCacheSize>("accumulated_cache_size", "INTEGER"),
    field<&Compile::guardCount>("guard_count", "INTEGER"),
    field<&Compile::shapeEnvGuardCount>("shape_env_guard_count", "INTEGER"),
    field<&Compile::opCount>("op_count", "INTEGER"),
    field<&Compile::nodeCount>("node_count", "INTEGER"),
    field<&Compile::inputCount>("input_count", "INTEGER"),
    field<&Compile::startTime>("start_time", "REAL"),
    // Callers drop the large metrics text once written: an update without it keeps the stored one.
    keptWhenEmpty<&Compile::metricsJson>("metrics_json", "TEXT NOT NULL DEFAULT ''"));

inline constexpr auto kCompilePhases = makeTable<PhaseTime>(
    "compile_phases", "PRIMARY KEY (compile_id, phase)", "", "compile_id, rowid",
    external<PhaseTime>("compile_id", "INTEGER NOT NULL REFERENCES compiles(id)"),
    field<&PhaseTime::phase>("phase", "TEXT NOT NULL"),
    field<&PhaseTime::seconds>("seconds", "REAL NOT NULL"));

inline constexpr auto kGraphs = makeTable<Graph>(
    "graphs", "", "CREATE INDEX graphs_by_compile ON graphs(compile_id);\n", "session_id, seq, id",
    field<&Graph::id>("id", "INTEGER PRIMARY KEY"),
    field<&Graph::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&Graph::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&Graph::seq>("seq", "INTEGER NOT NULL"),
    field<&Graph::line>("line", "INTEGER NOT NULL"),
    field<&Graph::kind>("kind", "TEXT NOT NULL"),
    field<&Graph::name>("name", "TEXT NOT NULL"),
    field<&Graph::text>("text", "TEXT NOT NULL"),
    // JSON: one array per node (json_columns.h); nodes were rows of a graph_nodes table before schema version 4.
    field<&Graph::nodes>("nodes", "TEXT NOT NULL DEFAULT '[]'"));

inline constexpr auto kGuards = makeTable<Guard>(
    "guards", "", "CREATE INDEX guards_by_compile ON guards(compile_id, idx);\n", "compile_id, idx",
    field<&Guard::id>("id", "INTEGER PRIMARY KEY"),
    field<&Guard::compileId>("compile_id", "INTEGER NOT NULL REFERENCES compiles(id)"),
    field<&Guard::index>("idx", "INTEGER NOT NULL"),
    field<&Guard::kind>("kind", "TEXT NOT NULL"),
    field<&Guard::source>("source", "TEXT NOT NULL"),
    field<&Guard::text>("text", "TEXT NOT NULL"),
    field<&Guard::checks>("checks", "TEXT NOT NULL"),
    field<&Guard::userCode>("user_code", "TEXT NOT NULL"),
    field<&Guard::depth>("depth", "INTEGER NOT NULL"));

inline constexpr auto kGuardFailures = makeTable<GuardFailure>(
    "guard_failures", "", "CREATE INDEX guard_failures_by_compile ON guard_failures(compile_id, idx);\n",
    "compile_id, idx",
    field<&GuardFailure::id>("id", "INTEGER PRIMARY KEY"),
    field<&GuardFailure::compileId>("compile_id", "INTEGER NOT NULL REFERENCES compiles(id)"),
    field<&GuardFailure::index>("idx", "INTEGER NOT NULL"),
    field<&GuardFailure::failedCompile>("failed_compile", "TEXT NOT NULL"),
    field<&GuardFailure::reason>("reason", "TEXT NOT NULL"));

inline constexpr auto kGraphBreaks = makeTable<GraphBreak>(
    "graph_breaks", "", "CREATE INDEX graph_breaks_by_session ON graph_breaks(session_id, dedup_key);\n",
    "session_id, seq, id",
    field<&GraphBreak::id>("id", "INTEGER PRIMARY KEY"),
    field<&GraphBreak::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&GraphBreak::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&GraphBreak::seq>("seq", "INTEGER NOT NULL"),
    field<&GraphBreak::line>("line", "INTEGER NOT NULL"),
    field<&GraphBreak::origin>("origin", "TEXT NOT NULL CHECK (origin IN ('artifact', 'restart'))"),
    field<&GraphBreak::reason>("reason", "TEXT NOT NULL"),
    field<&GraphBreak::breakType>("break_type", "TEXT NOT NULL"),
    field<&GraphBreak::userFile>("user_file", "TEXT NOT NULL"),
    field<&GraphBreak::userLine>("user_line", "INTEGER NOT NULL"),
    field<&GraphBreak::userStack>("user_stack", "TEXT NOT NULL"),  // JSON array of frames
    field<&GraphBreak::dedupKey>("dedup_key", "TEXT NOT NULL"),
    field<&GraphBreak::text>("text", "TEXT NOT NULL"));

inline constexpr auto kOutputCode = makeTable<OutputCode>(
    "output_code", "", "", "session_id, seq, id",
    field<&OutputCode::id>("id", "INTEGER PRIMARY KEY"),
    field<&OutputCode::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&OutputCode::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&OutputCode::seq>("seq", "INTEGER NOT NULL"),
    field<&OutputCode::line>("line", "INTEGER NOT NULL"),
    field<&OutputCode::event>("event", "TEXT NOT NULL"),
    field<&OutputCode::filename>("filename", "TEXT NOT NULL"),
    field<&OutputCode::language>("language", "TEXT NOT NULL"),
    field<&OutputCode::source>("source", "TEXT NOT NULL"));

inline constexpr auto kKernels = makeTable<Kernel>(
    "kernels", "", "CREATE INDEX kernels_by_output ON kernels(output_code_id, idx);\n", "output_code_id, idx",
    field<&Kernel::id>("id", "INTEGER PRIMARY KEY"),
    field<&Kernel::outputCodeId>("output_code_id", "INTEGER NOT NULL REFERENCES output_code(id)"),
    field<&Kernel::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&Kernel::index>("idx", "INTEGER NOT NULL"),
    field<&Kernel::name>("name", "TEXT NOT NULL"),
    field<&Kernel::language>("language", "TEXT NOT NULL"),
    field<&Kernel::source>("source", "TEXT NOT NULL"),
    field<&Kernel::launchConfig>("launch_config", "TEXT NOT NULL DEFAULT ''"),
    field<&Kernel::compileSeconds>("compile_seconds", "REAL"),
    field<&Kernel::sourceNodes>("source_nodes", "TEXT NOT NULL DEFAULT '[]'"),        // Dynamo-graph nodes computed
    field<&Kernel::postGradNodes>("post_grad_nodes", "TEXT NOT NULL DEFAULT '[]'"));  // post-grad nodes fused in

inline constexpr auto kArtifacts = makeTable<Artifact>(
    "artifacts", "", "CREATE INDEX artifacts_by_compile ON artifacts(compile_id, seq);\n", "session_id, seq, id",
    field<&Artifact::id>("id", "INTEGER PRIMARY KEY"),
    field<&Artifact::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&Artifact::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&Artifact::seq>("seq", "INTEGER NOT NULL"),
    field<&Artifact::line>("line", "INTEGER NOT NULL"),
    field<&Artifact::event>("event", "TEXT NOT NULL"),
    field<&Artifact::name>("name", "TEXT NOT NULL"),
    field<&Artifact::encoding>("encoding", "TEXT NOT NULL"),
    field<&Artifact::metadata>("metadata", "TEXT NOT NULL"),  // the record's JSON envelope, verbatim
    external<Artifact>("payload_id", "INTEGER REFERENCES payloads(id)"),  // the text lives in `payloads`
    field<&Artifact::payloadIntact>("payload_intact", "INTEGER NOT NULL"));

// PyTorch logs the same graph under several artifact names: each distinct text is stored once.
inline constexpr auto kPayloads = makeTable<StoredPayload>(
    "payloads", "", "CREATE INDEX payloads_by_md5 ON payloads(md5);\n", "id",
    field<&StoredPayload::id>("id", "INTEGER PRIMARY KEY"),
    field<&StoredPayload::md5>("md5", "TEXT NOT NULL"),
    field<&StoredPayload::text>("text", "TEXT NOT NULL"));

inline constexpr auto kSpans = makeTable<Span>(
    "spans", "", "CREATE INDEX spans_by_time ON spans(session_id, start_us);\n", "session_id, start_us, id",
    field<&Span::id>("id", "INTEGER PRIMARY KEY"),
    field<&Span::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&Span::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&Span::compileKey>("compile_key", "TEXT NOT NULL"),
    field<&Span::name>("name", "TEXT NOT NULL"),
    field<&Span::category>("category", "TEXT NOT NULL"),
    field<&Span::startUs>("start_us", "REAL NOT NULL"),
    field<&Span::durationUs>("duration_us", "REAL"),
    field<&Span::threadId>("thread_id", "INTEGER NOT NULL"),
    field<&Span::args>("args", "TEXT NOT NULL"));

inline constexpr auto kRecordsWithoutCompileId = makeTable<RecordWithoutCompileId>(
    "records_without_compile_id", "",
    "CREATE INDEX records_without_compile_id_by_session ON records_without_compile_id(session_id, seq);\n",
    "session_id, seq, id",
    field<&RecordWithoutCompileId::id>("id", "INTEGER PRIMARY KEY"),
    field<&RecordWithoutCompileId::sessionId>("session_id", "INTEGER NOT NULL REFERENCES sessions(id)"),
    field<&RecordWithoutCompileId::seq>("seq", "INTEGER NOT NULL"),
    field<&RecordWithoutCompileId::line>("line", "INTEGER NOT NULL"),
    field<&RecordWithoutCompileId::event>("event", "TEXT NOT NULL"),  // the envelope's event key
    field<&RecordWithoutCompileId::name>("name", "TEXT NOT NULL"),    // artifact or chromium event name
    // The compile its payload names (a chromium event's args.compile_id).
    field<&RecordWithoutCompileId::compileId>("compile_id", "INTEGER REFERENCES compiles(id)"),
    field<&RecordWithoutCompileId::stack>("stack", "TEXT NOT NULL DEFAULT '[]'"));  // JSON: the context stack

/// Calls `visit(table)` for every table of the current schema, in creation order.
template <class Visit>
void forEachTable(Visit&& visit) {
    visit(kMeta);
    visit(kSessions);
    visit(kImportIssues);
    visit(kInternedStrings);
    visit(kCompileSites);
    visit(kCompiles);
    visit(kCompilePhases);
    visit(kGraphs);
    visit(kGuards);
    visit(kGuardFailures);
    visit(kGraphBreaks);
    visit(kOutputCode);
    visit(kKernels);
    visit(kArtifacts);
    visit(kPayloads);
    visit(kSpans);
    visit(kRecordsWithoutCompileId);
}

/// The tables the model holds, in the reader's loading order: `visit.rows(table, &TraceData::member, stage)` for
/// each table of top-level rows, `visit.children(table, parentColumn, &TraceData::parents, &Parent::member,
/// stage)` for rows held inside their parent rows. Interned strings (a map) are left to the caller.
template <class Visit>
void forEachModelTable(Visit&& visit) {
    visit.rows(kSessions, &TraceData::sessions, "sessions");
    visit.rows(kCompileSites, &TraceData::sites, "compile sites");
    visit.rows(kCompiles, &TraceData::compiles, "compiles");
    visit.children(kCompilePhases, "compile_id", &TraceData::compiles, &Compile::phases, "compile phases");
    visit.rows(kGraphs, &TraceData::graphs, "graphs");
    visit.rows(kGuards, &TraceData::guards, "guards");
    visit.rows(kGuardFailures, &TraceData::guardFailures, "guard failures");
    visit.rows(kGraphBreaks, &TraceData::graphBreaks, "graph breaks");
    visit.rows(kOutputCode, &TraceData::outputCode, "generated code");
    visit.children(kKernels, "output_code_id", &TraceData::outputCode, &OutputCode::kernels, "kernels");
    visit.rows(kArtifacts, &TraceData::artifacts, "artifacts");
    visit.rows(kSpans, &TraceData::spans, "spans");
    visit.rows(kRecordsWithoutCompileId, &TraceData::recordsWithoutCompileId, "records without a compile id");
    visit.rows(kImportIssues, &TraceData::issues, "import issues");
}

/// CREATE TABLE and CREATE INDEX statements of the current schema.
inline std::string currentSchemaSql() {
    std::string sql;
    forEachTable([&](const auto& table) { sql += createTableSql(table); });
    return sql;
}

}  // namespace tables
}  // namespace traces
