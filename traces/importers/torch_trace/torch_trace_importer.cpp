// TORCH_TRACE import: decodes each record's JSON envelope with simdjson and routes it, by event kind, to the
// store's tables. Kinds without a table of their own, and unknown kinds, are kept verbatim as artifacts.
#include "importers/torch_trace/torch_trace_importer.h"

#include <simdjson.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "importers/torch_trace/chromium_spans.h"
#include "importers/torch_trace/compile_tracker.h"
#include "importers/torch_trace/graph_parse_ahead.h"
#include "importers/torch_trace/log_names.h"
#include "importers/torch_trace/log_records.h"
#include "importers/torch_trace/read_ahead.h"
#include "parse/fx_graph_text.h"
#include "parse/graph_break_text.h"
#include "parse/guard_tree.h"
#include "parse/output_code.h"
#include "parse/recompile_reasons.h"

namespace traces {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

constexpr size_t kMaxStoredIssues = 10000;  // a file of junk must not turn into millions of rows

std::optional<int> optionalInt(element e) {
    int64_t v = 0;
    if (e.get_int64().get(v) == simdjson::SUCCESS) return static_cast<int>(v);
    return std::nullopt;
}

std::string stringOr(object o, const char* key, std::string fallback = {}) {
    std::string_view v;
    if (o[key].get_string().get(v) == simdjson::SUCCESS) return std::string(v);
    return fallback;
}

std::optional<int64_t> intField(object o, const char* key) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
    int64_t i = 0;
    if (e.get_int64().get(i) == simdjson::SUCCESS) return i;
    double d = 0;
    if (e.get_double().get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
    return std::nullopt;
}

std::optional<double> realField(object o, const char* key) {
    double d = 0;
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
    if (e.get_double().get(d) == simdjson::SUCCESS) return d;
    int64_t i = 0;
    if (e.get_int64().get(i) == simdjson::SUCCESS) return static_cast<double>(i);
    return std::nullopt;
}

bool isContextKey(std::string_view key) {
    return key == "rank" || key == "frame_id" || key == "frame_compile_id" || key == "attempt" ||
           key == "compiled_autograd_id" || key == "has_payload" || key == "stack";
}

class Importer {
public:
    Importer(const std::string& path, RowSink& writer, ImportProgressFn progress)
        : path_(path), writer_(writer), progress_(std::move(progress)),
          spans_([this](Span s) { writer_.addSpan(s); }) {
        session_.sourceFile = std::filesystem::path(path).filename().string();
        session_.sourcePath = path;
        session_.rank = rankFromFileName(session_.sourceFile);
        session_.id = writer_.addSession(session_);
        result_.sessionId = session_.id;
        result_.sourceFile = session_.sourceFile;
        tracker_.emplace(writer_, session_.id);
        sites_.emplace(writer_, session_.id);
    }

    /// Imports the records of `range`, which starts where the previous read stopped.
    void read(const LogByteRange& range) {
        ReadAheadRecords reader(path_, range);
        auto report = [this](std::vector<LogProblem>& problems) {
            for (LogProblem& p : problems) problem(p.line, p.column, std::move(p.kind), std::move(p.message));
            problems.clear();
        };
        uint64_t lastReported = range.begin;
        while (ReadRecord* read = reader.next()) {
            report(read->problems);
            handle(read->record, read->payloadMd5);
            if (progress_ && read->bytesRead - lastReported > (8u << 20)) {
                lastReported = read->bytesRead;
                progress_(lastReported, reader.fileSize());
            }
        }
        report(reader.trailingProblems());
        graphs_.drain(storeGraph_);
        if (progress_) progress_(reader.bytesRead(), reader.fileSize());
        bytesRead_ = reader.bytesRead();
        linesRead_ = reader.linesRead();
    }

    uint64_t bytesRead() const { return bytesRead_; }
    int64_t linesRead() const { return linesRead_; }

    /// Writes the session row as far as read and commits: readers see the rows so far.
    void publish() {
        graphs_.drain(storeGraph_);
        session_.bytes = static_cast<int64_t>(bytesRead_);
        session_.records = result_.records;
        session_.malformedRecords = result_.malformedRecords;
        writer_.updateSession(session_);
        writer_.commit();
    }

    /// The rows of the log's end (spans never closed, what the whole file lacked), once everything is read.
    ImportResult finish() {
        spans_.finish();
        if (bytesRead_ == 0) problem(0, 0, "empty_file", "the file is empty: no trace records");
        if (bytesRead_ > 0 && result_.records == 0 && result_.malformedRecords == 0)
            problem(0, 0, "empty_file", "the file holds no trace records");
        if (droppedIssues_ > 0) {
            writer_.addImportIssue(ImportIssue{session_.id, 0, 0, "too_many_problems",
                                               std::to_string(droppedIssues_) + " more problems were not listed"});
        }
        publish();
        result_.bytes = bytesRead_;
        result_.lines = linesRead_;
        return std::move(result_);
    }

private:
    std::string path_;
    RowSink& writer_;
    ImportProgressFn progress_;
    uint64_t bytesRead_ = 0;
    int64_t linesRead_ = 0;
    Session session_;
    ImportResult result_;
    std::optional<CompileTracker> tracker_;
    ChromiumSpanBuilder spans_;
    simdjson::dom::parser parser_;
    simdjson::dom::parser payloadParser_;
    std::vector<std::string> strings_;
    std::optional<CompileSiteTable> sites_;
    int64_t seq_ = 0;
    int64_t droppedIssues_ = 0;
    bool sawRank_ = false;
    GraphParseAhead graphs_{kMaxGraphNodes, writer_.storesEncodedGraphNodes()};
    // Parsed graphs reach the sink in log order, as do the problems noted between them (problem drains first).
    GraphParseAhead::Done storeGraph_ = [this](Graph&& g, std::string&& nodesJson, bool tooLarge) {
        if (tooLarge)
            noteProblem(g.line, 0, "graph_too_large", "graph " + g.name + " has more than " + std::to_string(kMaxGraphNodes) + " nodes: its text is kept, its nodes are not listed");
        graphs_.encodesNodes() ? writer_.addGraph(std::move(g), std::move(nodesJson)) : writer_.addGraph(std::move(g));
    };

    void problem(int64_t line, int column, std::string kind, std::string message) {
        graphs_.drain(storeGraph_);
        noteProblem(line, column, std::move(kind), std::move(message));
    }
    void noteProblem(int64_t line, int column, std::string kind, std::string message) {
        ++result_.malformedRecords;
        ImportIssue issue{session_.id, line, column, std::move(kind), std::move(message)};
        if (result_.firstIssues.size() < 20) result_.firstIssues.push_back(issue);
        if (result_.malformedRecords > static_cast<int64_t>(kMaxStoredIssues)) {
            ++droppedIssues_;
            return;
        }
        writer_.addImportIssue(issue);
    }

    // simdjson reports no position; nlohmann's error (only on this rare path) gives the byte of the failure.
    void reportBadJson(const LogRecord& record, simdjson::error_code error) {
        int column = static_cast<int>(record.header.json.data() - record.headerText.data()) + 1;
        std::string detail = simdjson::error_message(error);
        try {
            [[maybe_unused]] auto parsed = nlohmann::json::parse(record.header.json);
        } catch (const nlohmann::json::parse_error& e) {
            column += static_cast<int>(e.byte) - 1;
            detail = e.what();
            if (size_t at = detail.find("parse error"); at != std::string::npos) detail = detail.substr(at);
        } catch (const nlohmann::json::exception& e) {
            // Valid syntax that nlohmann cannot hold either, such as a number beyond a double (1e999).
            detail = e.what();
            if (size_t at = detail.find("] "); at != std::string::npos) detail = detail.substr(at + 2);
        }
        std::string cut = record.cutShort ? " (the file ends in the middle of this line)" : "";
        problem(record.line, column, "bad_json", "invalid JSON in the record header: " + detail + cut);
    }

    Stack decodeStack(element stackValue) {
        Stack stack;
        simdjson::dom::array frames;
        if (stackValue.get_array().get(frames) != simdjson::SUCCESS) return stack;
        for (element f : frames) {
            object o;
            if (f.get_object().get(o) != simdjson::SUCCESS) continue;
            Frame frame;
            int64_t fileIndex = -1;
            if (o["filename"].get_int64().get(fileIndex) == simdjson::SUCCESS) {
                frame.file = fileIndex >= 0 && static_cast<size_t>(fileIndex) < strings_.size()
                                 ? strings_[static_cast<size_t>(fileIndex)]
                                 : "(unknown)";
            } else {
                frame.file = stringOr(o, "filename");
            }
            frame.line = static_cast<int>(intField(o, "line").value_or(0));
            frame.function = stringOr(o, "name");
            frame.source = stringOr(o, "loc");
            stack.push_back(std::move(frame));
        }
        return stack;
    }

    /// `payloadMd5`: the md5 of the record's payload (empty without one), computed as it was read.
    void handle(LogRecord& record, const std::string& payloadMd5) {
        auto doc = parser_.parse(record.header.json.data(), record.header.json.size(), false);
        object envelope;
        if (doc.error() != simdjson::SUCCESS) return reportBadJson(record, doc.error());
        if (doc.get_object().get(envelope) != simdjson::SUCCESS) {
            return problem(record.line, static_cast<int>(record.header.json.data() - record.headerText.data()) + 1,
                           "bad_json", "the record header's JSON is not an object");
        }

        RecordContext context;
        std::string_view event, hasPayload;
        element eventValue, contextStack;
        bool hasContextStack = false;
        std::optional<int> rank;
        for (auto field : envelope) {
            std::string_view key = field.key;
            if (key == "frame_id") context.frameId = optionalInt(field.value);
            else if (key == "frame_compile_id") context.frameCompileId = optionalInt(field.value);
            else if (key == "attempt") context.attempt = optionalInt(field.value);
            else if (key == "compiled_autograd_id") context.autogradId = optionalInt(field.value);
            else if (key == "rank") rank = optionalInt(field.value);
            else if (key == "stack") contextStack = field.value, hasContextStack = true;
            else if (key == "has_payload" && field.value.get_string().get(hasPayload) != simdjson::SUCCESS)
                hasPayload = {};
            else if (event.empty() && !isContextKey(key)) event = key, eventValue = field.value;
        }
        if (event.empty()) {
            return problem(record.line, 0, "no_event", "the record names no event (only context keys)");
        }

        bool intact = true;
        std::string digest;
        if (!hasPayload.empty()) {
            if (record.payloadLines == 0) {
                intact = false;
                problem(record.line, 0, "truncated_payload",
                        "the record declares a payload (md5 " + std::string(hasPayload) + ") but no payload follows");
            } else {
                digest = payloadMd5;
                if (digest != hasPayload) {
                    intact = false;
                    problem(record.line + 1, 1, "md5_mismatch",
                            "payload of the '" + std::string(event) + "' record at line " +
                                std::to_string(record.line) + " does not match its md5 (" +
                                std::to_string(record.payloadLines) + " lines, kept as read)");
                }
            }
        } else if (record.payloadLines > 0) {
            digest = payloadMd5;
        }

        ++result_.records;
        if (session_.startedAt.empty()) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%02d-%02d %02d:%02d:%02d.%03d", record.header.month, record.header.day,
                          record.header.hour, record.header.minute, record.header.second,
                          record.header.microsecond / 1000);
            session_.startedAt = buf;
            session_.processId = record.header.processId;
        }
        if (rank) {
            if (!sawRank_) {
                sawRank_ = true;
                session_.rank = rank;
            } else if (session_.rank != rank) {
                // tlparse drops records of another rank interleaved into this file; we keep them verbatim.
                problem(record.line, 0, "other_rank",
                        "record of rank " + std::to_string(*rank) + " in a log of rank " +
                            std::to_string(session_.rank.value_or(-1)) + "; kept as an artifact only");
                return storeArtifact(record, event, event, "", nullptr, intact, digest);
            }
        }
        std::string eventName(event);
        std::string artifactName;
        if (event == "artifact") {
            object meta;
            if (eventValue.get_object().get(meta) == simdjson::SUCCESS) artifactName = stringOr(meta, "name");
            ++result_.eventCounts["artifact:" + artifactName];
        }
        ++result_.eventCounts[eventName];
        std::optional<RecordWithoutCompileId> noCompileId;
        if (!context.hasCompileId() && event != "str") {
            noCompileId.emplace();
            noCompileId->sessionId = session_.id;
            noCompileId->seq = seq_;
            noCompileId->line = record.line;
            noCompileId->event = eventName;
            noCompileId->name = artifactName.empty() ? eventName : artifactName;
            if (hasContextStack) noCompileId->stack = decodeStack(contextStack);
        }
        route(record, event, eventValue, context, artifactName, intact, digest, noCompileId ? &*noCompileId : nullptr);
        if (noCompileId) writer_.addRecordWithoutCompileId(*noCompileId);
    }

    // `noCompileId` is set for records whose envelope named no compile id; routing fills in what the payload says.
    void route(LogRecord& record, std::string_view event, element value, const RecordContext& context,
               const std::string& artifactName, bool intact, const std::string& digest,
               RecordWithoutCompileId* noCompileId) {
        if (event == "str") return internString(value);
        if (event == "chromium_event") return addChromiumEvent(record, context, noCompileId);
        Compile* compile = event == "dynamo_start" ? nullptr : tracker_->rowFor(context, record.line);
        std::optional<RowId> compileId = compile ? std::optional(compile->id) : std::nullopt;

        if (event == "dynamo_start") return startCompile(record, value, context);
        if (event == "compilation_metrics") return applyMetrics(value, record.header.json, compile, record.line);
        if (auto kind = graphKindOfEvent(event)) return addGraph(record, *kind, std::string(event), compileId);
        if (event == "inductor_output_code" || event == "graph_dump") return addOutputCode(record, event, value, compileId);
        if (event == "dynamo_cpp_guards_str" && compile) return addGuards(*compile, parseCppGuardTree(record.payload));
        if (event == "dynamo_guards" && compile) return addGuards(*compile, parseGuardListJson(record.payload));
        if (event == "artifact") {
            if (auto kind = graphKindOfArtifact(artifactName)) return addGraph(record, *kind, artifactName, compileId);
            if (artifactName == "dynamo_graph_break_reason")
                return storeGraphBreak(parseGraphBreakText(record.payload), "artifact", record.payload, compileId,
                                       record.line);
            if (artifactName == "recompile_reasons" && context.hasCompileId())
                return addRecompileReasons(record, tracker_->upcoming(context, record.line));
            if (artifactName == "fx_graph_runnable") noteTorchVersion(record.payload);
        }
        storeArtifact(record, event, artifactName.empty() ? event : artifactName, encodingOf(value), compile,
                      intact, digest);
    }

    static std::string encodingOf(element value) {
        object meta;
        if (value.get_object().get(meta) != simdjson::SUCCESS) return "";
        return stringOr(meta, "encoding");
    }

    // The record's payload moves into the row that stores it: each payload is copied once, from the file.
    void storeArtifact(LogRecord& record, std::string_view event, std::string_view name,
                       const std::string& encoding, const Compile* compile, bool intact, const std::string& digest) {
        Artifact a;
        a.sessionId = session_.id;
        a.compileId = compile ? std::optional(compile->id) : std::nullopt;
        a.seq = seq_++;
        a.line = record.line;
        a.event = event;
        a.name = name;
        a.encoding = encoding;
        a.metadata = std::string(record.header.json);
        a.payload = std::move(record.payload);
        a.payloadIntact = intact;
        writer_.addArtifact(std::move(a), intact ? std::string_view(digest) : std::string_view());
    }

    void internString(element value) {
        simdjson::dom::array pair;
        std::string_view text;
        int64_t index = 0;
        if (value.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2) return;
        if (pair.at(0).get_string().get(text) != simdjson::SUCCESS) return;
        if (pair.at(1).get_int64().get(index) != simdjson::SUCCESS || index < 0) return;
        if (strings_.size() <= static_cast<size_t>(index)) strings_.resize(static_cast<size_t>(index) + 1);
        strings_[static_cast<size_t>(index)] = std::string(text);
        writer_.addInternedString(session_.id, index, text);
    }

    // Dynamo's own frames (convert_frame.py, eval_frame.py) can trail the user stack in older logs.
    static void stripDynamoFrames(Stack& stack) {
        while (!stack.empty()) {
            const Frame& f = stack.back();
            bool internal = f.file.find("torch/_dynamo/") != std::string::npos &&
                            (f.function == "catch_errors" || f.function == "_convert_frame" ||
                             f.function == "_convert_frame_assert" || f.function == "__call__" ||
                             f.function == "_fn");
            if (!internal) break;
            stack.pop_back();
        }
    }

    void startCompile(const LogRecord& record, element value, const RecordContext& context) {
        object meta;
        Stack stack;
        if (value.get_object().get(meta) == simdjson::SUCCESS) {
            element s;
            if (meta["stack"].get(s) == simdjson::SUCCESS) stack = decodeStack(s);
        }
        stripDynamoFrames(stack);
        std::optional<RowId> siteId = sites_->siteFor(stack);
        Compile& row = tracker_->start(context, record.line, siteId);
        if (!stack.empty() && row.function.empty()) {
            row.function = stack.back().function;
            row.file = stack.back().file;
            row.firstLine = stack.back().line;
            tracker_->save(row);
        }
    }

    void applyMetrics(element value, std::string_view envelopeJson, Compile* compile, int64_t line) {
        object m;
        if (value.get_object().get(m) != simdjson::SUCCESS) return;
        if (!compile) {
            // 2024-era and runtime metrics can name the compile only inside the object.
            if (auto key = parseCompileKey(stringOr(m, "compile_id"))) {
                RecordContext fromMetrics{key->autogradId, key->frameId, key->frameCompileId, key->attempt};
                compile = tracker_->rowFor(fromMetrics, line);
            }
        }
        if (!compile) return;
        Compile& c = *compile;
        c.function = stringOr(m, "co_name", c.function);
        c.file = stringOr(m, "co_filename", c.file);
        c.firstLine = static_cast<int>(intField(m, "co_firstlineno").value_or(c.firstLine));
        c.failType = stringOr(m, "fail_type");
        c.failReason = stringOr(m, "fail_reason");
        c.failUserFile = stringOr(m, "fail_user_frame_filename");
        c.failUserLine = static_cast<int>(intField(m, "fail_user_frame_lineno").value_or(0));
        c.cacheSize = intField(m, "cache_size");
        c.accumulatedCacheSize = intField(m, "accumulated_cache_size");
        c.guardCount = intField(m, "guard_count");
        c.shapeEnvGuardCount = intField(m, "shape_env_guard_count");
        c.opCount = intField(m, "graph_op_count");
        c.nodeCount = intField(m, "graph_node_count");
        c.inputCount = intField(m, "graph_input_count");
        c.startTime = realField(m, "start_time");
        // tlparse's precedence: a failure wins over an empty graph (a failed frame logs no op count either).
        if (!c.failType.empty()) c.status = CompileStatus::Failed;
        else if (c.opCount.value_or(0) == 0) c.status = CompileStatus::Empty;
        else c.status = CompileStatus::Ok;
        c.restartReasons.clear();
        simdjson::dom::array restarts;
        if (m["restart_reasons"].get_array().get(restarts) == simdjson::SUCCESS) {
            for (element r : restarts) {
                std::string_view text;
                if (r.get_string().get(text) == simdjson::SUCCESS) c.restartReasons.emplace_back(text);
            }
        }
        std::string recompileReason = stringOr(m, "recompile_reason");
        if (c.recompileReasons.empty() && !recompileReason.empty()) c.recompileReasons.push_back(recompileReason);
        c.phases.clear();
        for (auto field : m) {
            std::string_view key = field.key;
            double v = 0;
            bool seconds = key.ends_with("_time_s");
            bool micros = key.ends_with("_time_us") && !key.starts_with("start_") && !key.starts_with("end_");
            if (!(seconds || micros)) continue;
            if (field.value.get_double().get(v) != simdjson::SUCCESS) {
                int64_t i = 0;
                if (field.value.get_int64().get(i) != simdjson::SUCCESS) continue;
                v = static_cast<double>(i);
            }
            std::string_view phase = key.substr(0, key.size() - (seconds ? 7 : 8));
            c.phases.push_back(PhaseTime{std::string(phase), seconds ? v : v / 1e6});
        }
        c.metricsJson = std::string(envelopeJson);
        std::vector<std::string> restartReasons = c.restartReasons;
        RowId compileId = c.id;
        tracker_->finish(c);
        for (const std::string& reason : restartReasons) {
            storeGraphBreak(parseRestartReason(reason), "restart", reason, compileId, line);
        }
    }

    void addGraph(LogRecord& record, GraphKind kind, std::string name, std::optional<RowId> compileId) {
        Graph g;
        g.sessionId = session_.id;
        g.compileId = compileId;
        g.seq = seq_++;
        g.line = record.line;
        g.kind = kind;
        g.name = std::move(name);
        g.text = std::move(record.payload);
        graphs_.push(std::move(g), storeGraph_);
    }

    void addOutputCode(LogRecord& record, std::string_view event, element value,
                       std::optional<RowId> compileId) {
        OutputCode o;
        o.sessionId = session_.id;
        o.compileId = compileId;
        o.seq = seq_++;
        o.line = record.line;
        o.event = std::string(event);
        object meta;
        if (value.get_object().get(meta) == simdjson::SUCCESS) {
            o.filename = stringOr(meta, "filename", stringOr(meta, "name"));
        }
        o.source = std::move(record.payload);
        SplitOutputCode split = splitOutputCode(o.source);
        o.language = event == "graph_dump" ? "cpp" : split.language;
        o.kernels = std::move(split.kernels);
        writer_.addOutputCode(std::move(o));
    }

    void addGuards(const Compile& compile, std::vector<Guard> guards) {
        for (Guard& g : guards) g.compileId = compile.id;
        writer_.addGuards(compile.id, guards);
    }

    void storeGraphBreak(ParsedGraphBreak parsed, const char* origin, const std::string& text,
                         std::optional<RowId> compileId, int64_t line) {
        GraphBreak b;
        b.sessionId = session_.id;
        b.compileId = compileId;
        b.seq = seq_++;
        b.line = line;
        b.origin = origin;
        b.dedupKey = graphBreakDedupKey(parsed);
        b.reason = std::move(parsed.reason);
        b.breakType = std::move(parsed.breakType);
        b.userFile = std::move(parsed.userFile);
        b.userLine = parsed.userLine;
        b.userStack = std::move(parsed.userStack);
        b.text = text;
        writer_.addGraphBreak(b);
    }

    void addRecompileReasons(const LogRecord& record, Compile& compile) {
        compile.recompileReasons = parseRecompileReasonsPayload(record.payload);
        std::vector<GuardFailure> failures;
        for (const std::string& line : compile.recompileReasons) {
            ParsedGuardFailure f = splitGuardFailure(line);
            failures.push_back(GuardFailure{0, compile.id, static_cast<int>(failures.size()), f.failedCompile,
                                            f.reason});
        }
        writer_.addGuardFailures(compile.id, failures);
        tracker_->save(compile);
    }

    void addChromiumEvent(const LogRecord& record, const RecordContext& context, RecordWithoutCompileId* noCompileId) {
        auto doc = payloadParser_.parse(record.payload);
        object o;
        if (doc.get_object().get(o) != simdjson::SUCCESS) {
            return problem(record.line + 1, 1, "bad_payload_json", "chromium_event payload is not a JSON object");
        }
        ChromiumEvent e;
        e.name = stringOr(o, "name");
        e.category = stringOr(o, "cat");
        std::string ph = stringOr(o, "ph", "i");
        e.phase = ph.empty() ? 'i' : ph[0];
        e.timestampUs = realField(o, "ts").value_or(0);
        e.durationUs = realField(o, "dur");
        e.threadId = intField(o, "tid").value_or(0);
        object args;
        if (o["args"].get_object().get(args) == simdjson::SUCCESS) {
            e.argsJson = simdjson::minify(args);
            e.compileKey = stringOr(args, "compile_id");
        }
        std::optional<RowId> compileId;
        if (Compile* c = tracker_->rowFor(context, record.line)) {
            compileId = c->id;
        } else if (auto key = parseCompileKey(e.compileKey)) {
            RecordContext fromArgs{key->autogradId, key->frameId, key->frameCompileId, key->attempt};
            if (Compile* byArgs = tracker_->rowFor(fromArgs, record.line)) compileId = byArgs->id;
        }
        if (noCompileId) {
            noCompileId->name = e.name;
            noCompileId->compileId = compileId;
        }
        spans_.add(std::move(e), session_.id, compileId);
    }

    void noteTorchVersion(const std::string& payload) {
        if (!session_.torchVersion.empty()) return;
        size_t at = payload.find("torch version: ");
        if (at == std::string::npos) return;
        size_t end = payload.find('\n', at);
        session_.torchVersion = payload.substr(at + 15, end == std::string::npos ? std::string::npos : end - at - 15);
    }
};

}  // namespace

struct LogImport::State : Importer {
    using Importer::Importer;
};

LogImport::LogImport(const std::string& logPath, RowSink& sink, ImportProgressFn progress)
    : state_(std::make_unique<State>(logPath, sink, std::move(progress))) {}
LogImport::~LogImport() = default;
void LogImport::read(const LogByteRange& range) { state_->read(range); }
uint64_t LogImport::bytesRead() const { return state_->bytesRead(); }
int64_t LogImport::linesRead() const { return state_->linesRead(); }
void LogImport::publish() { state_->publish(); }
ImportResult LogImport::finish() { return state_->finish(); }

ImportResult importTorchTraceLog(const std::string& logPath, RowSink& sink, const ImportProgressFn& progress) {
    LogImport import(logPath, sink, progress);
    import.read(LogByteRange{});
    return import.finish();
}

}  // namespace traces
