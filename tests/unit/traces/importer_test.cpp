// The TORCH_TRACE importer's routing: compiles and their attempts, sites, recompile reasons, spans, ranks,
// records without a compile id, and unknown event kinds kept verbatim.
#include <gtest/gtest.h>

#include <algorithm>

#include "importers/import_path.h"
#include "report/compile_insights.h"
#include "store/memory_sink.h"
#include "store/trace_reader.h"
#include "store/trace_writer.h"
#include "test_support.h"

using namespace traces;
using testsupport::ctx;

namespace {

struct Imported {
    std::shared_ptr<testsupport::TempDir> dir;
    ImportResult result;
    TraceData trace;
};

Imported importLog(const std::string& text, const std::string& name = "dedicated_log_torch_trace_x.log") {
    auto dir = std::make_shared<testsupport::TempDir>();
    testsupport::writeFile(dir->file(name), text);
    auto results = importPath(dir->file(name), dir->file("out.db"));
    return {dir, results.at(0), loadTrace(dir->file("out.db"))};
}

const Compile& compileNamed(const TraceData& t, const std::string& key, int occurrence = 0) {
    for (const Compile& c : t.compiles)
        if (c.key.str() == key && occurrence-- == 0) return c;
    throw std::runtime_error("no compile " + key);
}

std::string metrics(const std::string& extra = "") {
    return "{\"compilation_metrics\": {\"co_name\": \"f\", \"co_filename\": \"prog.py\", \"co_firstlineno\": 3, "
           "\"entire_frame_compile_time_s\": 0.5, \"inductor_cumulative_compile_time_us\": 250000, "
           "\"graph_op_count\": 2" + extra + "}, ";
}

}  // namespace

TEST(Importer, RestartedAttemptsAndResumeFramesBecomeSeparateCompiles) {
    testsupport::LogBuilder b;
    b.record("{\"str\": [\"prog.py\", 0]}");
    b.record("{\"dynamo_start\": {\"stack\": [{\"line\": 9, \"name\": \"main\", \"filename\": 0, \"loc\": \"f(x)\"}, "
             "{\"line\": 3, \"name\": \"f\", \"filename\": 0}]}, " + ctx(0, 0) + "}");
    b.record("{\"artifact\": {\"name\": \"dynamo_graph_break_reason\", \"encoding\": \"string\"}, " + ctx(0, 0) + "}",
             std::string("Graph break in user code at prog.py:5\nGraph Break Reason: Failed to trace builtin "
                         "operator\n  Explanation: print\nUser code traceback:\n  File \"prog.py\", line 5, in f\n"
                         "    print(\"hi\")\n"));
    b.record(metrics(", \"restart_reasons\": [\"Failed to trace builtin operator\"]") + ctx(0, 0, 1) + "}");
    b.record("{\"dynamo_start\": {\"stack\": [{\"line\": 9, \"name\": \"main\", \"filename\": 0, \"loc\": \"f(x)\"}, "
             "{\"line\": 5, \"name\": \"torch_dynamo_resume_in_f_at_5\", \"filename\": 0}]}, " + ctx(1, 0) + "}");
    b.record(metrics() + ctx(1, 0) + "}");
    auto imported = importLog(b.text());
    const TraceData& t = imported.trace;
    ASSERT_EQ(t.compiles.size(), 3u);
    EXPECT_EQ(compileNamed(t, "0/0").status, CompileStatus::Restarted);
    EXPECT_TRUE(compileNamed(t, "0/0").started);
    const Compile& second = compileNamed(t, "0/0_1");
    EXPECT_EQ(second.status, CompileStatus::Ok);
    EXPECT_FALSE(second.started);
    ASSERT_EQ(second.restartReasons.size(), 1u);
    ASSERT_EQ(second.phases.size(), 2u);
    EXPECT_EQ(second.phases[1].phase, "inductor_cumulative_compile");
    EXPECT_DOUBLE_EQ(second.phases[1].seconds, 0.25);
    ASSERT_EQ(t.sites.size(), 2u);
    EXPECT_EQ(t.sites[0].function, "f");
    EXPECT_EQ(t.sites[0].userStack.at(0).source, "f(x)");
    EXPECT_EQ(t.sites[1].function, "torch_dynamo_resume_in_f_at_5");
    auto artifactBreaks = std::count_if(t.graphBreaks.begin(), t.graphBreaks.end(),
                                        [](const GraphBreak& gb) { return gb.origin == "artifact"; });
    EXPECT_EQ(artifactBreaks, 1);
    EXPECT_EQ(t.graphBreaks.size(), 2u);  // plus the restart reason from the metrics
}

TEST(Importer, RecompileReasonsBecomeGuardFailuresInBothPayloadForms) {
    testsupport::LogBuilder b;
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 0) + "}");
    b.record(metrics() + ctx(0, 0) + "}");
    b.record("{\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, " + ctx(0, 1) + "}",
             std::string("0/0: tensor 'x' size mismatch at index 1. expected 16, actual 32"));
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 1) + "}");
    b.record(metrics() + ctx(0, 1) + "}");
    b.record("{\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, " + ctx(0, 2) + "}",
             std::string("[\n\"0/1: tensor 'x' size mismatch at index 0. expected 8, actual 16\",\n"
                         "\"0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16\"\n]"));
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 2) + "}");
    auto imported = importLog(b.text());
    const TraceData& t = imported.trace;
    ASSERT_EQ(t.guardFailures.size(), 3u);
    EXPECT_EQ(t.guardFailures[0].compileId, compileNamed(t, "0/1").id);
    EXPECT_EQ(t.guardFailures[0].failedCompile, "0/0");
    EXPECT_EQ(t.guardFailures[0].reason, "tensor 'x' size mismatch at index 1. expected 16, actual 32");
    EXPECT_EQ(t.guardFailures[1].failedCompile, "0/1");
    EXPECT_EQ(compileNamed(t, "0/2").recompileReasons.size(), 2u);
    EXPECT_EQ(compileNamed(t, "0/2").status, CompileStatus::Unknown);  // no metrics: the run ended first
}

TEST(Importer, CompileIdsReusedAfterResetOpenNewCompiles) {
    testsupport::LogBuilder b;
    for (int run = 0; run < 3; ++run) {
        b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 0) + "}");
        b.record(metrics() + ctx(0, 0) + "}");
    }
    auto imported = importLog(b.text());
    ASSERT_EQ(imported.trace.compiles.size(), 3u);
    for (const Compile& c : imported.trace.compiles) {
        EXPECT_TRUE(c.started);
        EXPECT_EQ(c.status, CompileStatus::Ok);
    }
}

TEST(Importer, ChromiumEventsPairIntoSpans) {
    testsupport::LogBuilder b;
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 0) + "}");
    b.record("{\"chromium_event\": {}, " + ctx(0, 0) + "}",
             std::string("{\n\"name\": \"backend_compile\",\n\"ts\": 1000.5,\n\"args\": {\n\"compile_id\": \"0/0\"\n},"
                         "\n\"ph\": \"B\",\n\"cat\": \"dynamo_timed\",\n\"tid\": 0,\n\"pid\": 0\n}"));
    b.record("{\"chromium_event\": {}, " + ctx(0, 0) + "}",
             std::string("{\"name\": \"backend_compile\", \"ts\": 3000.5, \"args\": {\"compile_id\": \"0/0\", "
                         "\"graph_op_count\": 2}, \"ph\": \"E\", \"cat\": \"dynamo_timed\", \"tid\": 0, \"pid\": 0}"));
    b.record("{\"chromium_event\": {}, " + ctx(0, 0) + "}",
             std::string("{\"name\": \"fx_graph_cache_miss\", \"ts\": 2000, \"ph\": \"i\", \"s\": \"p\", "
                         "\"cat\": \"dynamo_timed\", \"tid\": 0, \"pid\": 0}"));
    b.record("{\"chromium_event\": {}, " + ctx(0, 0) + "}",
             std::string("{\"name\": \"never_closed\", \"ts\": 2500, \"ph\": \"B\", \"tid\": 0, \"pid\": 0}"));
    auto imported = importLog(b.text());
    const auto& spans = imported.trace.spans;
    ASSERT_EQ(spans.size(), 3u);
    EXPECT_EQ(spans[0].name, "backend_compile");
    EXPECT_DOUBLE_EQ(*spans[0].durationUs, 2000.0);
    EXPECT_NE(spans[0].args.find("graph_op_count"), std::string::npos);
    EXPECT_EQ(spans[0].compileId, imported.trace.compiles.at(0).id);
    EXPECT_EQ(spans[1].name, "fx_graph_cache_miss");
    EXPECT_DOUBLE_EQ(*spans[1].durationUs, 0.0);
    EXPECT_EQ(spans[2].name, "never_closed");
    EXPECT_FALSE(spans[2].durationUs);
}

TEST(Importer, UnknownEventsAndOtherRanksAreKeptVerbatim) {
    testsupport::LogBuilder b;
    b.record("{\"brand_new_event\": {\"x\": 1}, \"rank\": 1}", std::string("payload text"));
    b.record("{\"dynamo_start\": {\"stack\": []}, \"rank\": 0, " + ctx(0, 0) + "}");
    auto imported = importLog(b.text(), "dedicated_log_torch_trace_rank_1_ab12.log");
    const TraceData& t = imported.trace;
    EXPECT_EQ(t.sessions.at(0).rank, 1);
    ASSERT_EQ(t.artifacts.size(), 2u);
    EXPECT_EQ(t.artifacts[0].event, "brand_new_event");
    EXPECT_NE(t.artifacts[0].metadata.find("\"x\": 1"), std::string::npos);
    EXPECT_EQ(loadArtifactPayload(t.path, t.artifacts[0].id), "payload text");
    EXPECT_EQ(t.artifacts[1].event, "dynamo_start");
    ASSERT_EQ(t.issues.size(), 1u);
    EXPECT_EQ(t.issues[0].kind, "other_rank");
    EXPECT_EQ(t.issues[0].line, 3);
}

TEST(Importer, WarningsArriveWithTheirTextOtherPayloadsStayOnDisk) {
    // The workbench shows a compile's warnings (cwb's run notes among them) without reading the file again.
    testsupport::LogBuilder b;
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 0) + "}");
    b.record("{\"artifact\": {\"name\": \"dynamo_warning\", \"encoding\": \"string\"}, " + ctx(0, 0) + "}",
             std::string("skipping cudagraphs due to mutated inputs"));
    b.record("{\"artifact\": {\"name\": \"big_table\", \"encoding\": \"string\"}, " + ctx(0, 0) + "}", std::string("rows"));
    auto imported = importLog(b.text(), "dedicated_log_torch_trace_rank_0_ab12.log");
    const TraceData& t = imported.trace;
    ASSERT_EQ(t.artifacts.size(), 2u);
    EXPECT_EQ(t.artifacts[0].name, "dynamo_warning");
    EXPECT_EQ(t.artifacts[0].payload, "skipping cudagraphs due to mutated inputs");
    EXPECT_EQ(t.artifacts[0].compileId, t.compiles.at(0).id);
    EXPECT_EQ(t.artifacts[1].payload, "");
    EXPECT_EQ(loadArtifactPayload(t.path, t.artifacts[1].id), "rows");
}

TEST(Importer, DirectoryImportsOneSessionPerRankFile) {
    testsupport::TempDir dir;
    testsupport::LogBuilder b;
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 0) + "}");
    testsupport::writeFile(dir.file("dedicated_log_torch_trace_rank_0_a.log"), b.text());
    testsupport::writeFile(dir.file("dedicated_log_torch_trace_rank_1_b.log"), b.text());
    testsupport::writeFile(dir.file("notes.txt"), "not a log");
    auto results = importPath(dir.path().string(), dir.file("all.db"));
    ASSERT_EQ(results.size(), 2u);
    TraceData t = loadTrace(dir.file("all.db"));
    ASSERT_EQ(t.sessions.size(), 2u);
    EXPECT_EQ(t.sessions[0].rank, 0);
    EXPECT_EQ(t.sessions[1].rank, 1);
    EXPECT_EQ(t.sessions[1].sourceFile, "dedicated_log_torch_trace_rank_1_b.log");
}

TEST(Importer, RecordsWithoutACompileIdAreListedWithWhatTheirPayloadNames) {
    // As in real torch 2.11 logs: runtime autotuning events name their compile only in args (or "None"), and a
    // run-time artifact carries the stack of the code that logged it instead of a compile id.
    testsupport::LogBuilder b;
    b.record("{\"str\": [\"train.py\", 0]}");
    b.record("{\"dynamo_start\": {\"stack\": []}, " + ctx(0, 0) + "}");
    b.record(metrics(", \"compliant_custom_ops\": [\"_c10d_functional::wait_tensor\", "
                     "\"_c10d_functional::all_reduce\"], \"non_compliant_ops\": [\"test::baz\"]") + ctx(0, 0) + "}");
    b.record("{\"chromium_event\": {}}",
             std::string("{\"name\": \"CachingAutotuner.benchmark_all_configs\", \"ts\": 10, \"args\": "
                         "{\"compile_id\": \"0/0\"}, \"ph\": \"B\", \"tid\": 0, \"pid\": 0}"));
    b.record("{\"chromium_event\": {}}",
             std::string("{\"name\": \"compile_file\", \"ts\": 20, \"args\": {\"compile_id\": \"None\"}, "
                         "\"ph\": \"B\", \"tid\": 0, \"pid\": 0}"));
    b.record("{\"artifact\": {\"name\": \"graph_execution\", \"encoding\": \"json\"}, \"stack\": [{\"line\": 12, "
             "\"name\": \"step\", \"filename\": 0}]}",
             std::string("{\"graph_execution_order\": []}"));
    auto imported = importLog(b.text());
    const TraceData& t = imported.trace;
    ASSERT_EQ(t.recordsWithoutCompileId.size(), 3u);  // the `str` record has no compile context by design
    const RecordWithoutCompileId& autotune = t.recordsWithoutCompileId[0];
    EXPECT_EQ(autotune.line, 4);
    EXPECT_EQ(autotune.name, "CachingAutotuner.benchmark_all_configs");
    EXPECT_EQ(autotune.compileId, compileNamed(t, "0/0").id);
    EXPECT_FALSE(t.recordsWithoutCompileId[1].compileId);
    const RecordWithoutCompileId& execution = t.recordsWithoutCompileId[2];
    EXPECT_EQ(execution.event + ": " + execution.name, "artifact: graph_execution");
    ASSERT_EQ(execution.stack.size(), 1u);
    EXPECT_EQ(execution.stack[0].file, "train.py");
    EXPECT_EQ(execution.stack[0].line, 12);

    RecordsWithoutCompileId found = recordsWithoutCompileId(t, t.sessions.at(0).id);
    EXPECT_EQ(found.joinedByPayload, 1);
    EXPECT_EQ(found.withStack, 1);
    EXPECT_EQ(found.countsByName.size(), 3u);

    InsightIndex insights(t);
    const CustomOps& ops = insights.compile(compileNamed(t, "0/0").id).customOps;
    EXPECT_EQ(ops.compliant, (std::vector<std::string>{"_c10d_functional::all_reduce", "_c10d_functional::wait_tensor"}));
    EXPECT_EQ(ops.nonCompliant, std::vector<std::string>{"test::baz"});
    EXPECT_EQ(customOpsText(ops), "non-compliant test::baz; compliant _c10d_functional::all_reduce, "
                                  "_c10d_functional::wait_tensor");
}

// The same log through both row sinks: the rows kept in memory are the rows a trace file gives back, ids included.
TEST(Importer, MemorySinkKeepsTheRowsATraceFileWould) {
    std::string log = std::string(CWB_TEST_DATA_DIR) + "/torch_traces/recompiles_cpu/dedicated_log_torch_trace_mc6v5kbu.log";
    testsupport::TempDir dir;
    {
        TraceWriter writer(dir.file("out.db"));
        importTorchTraceLog(log, writer);
    }
    TraceData file = loadTrace(dir.file("out.db"));
    MemorySink memory;
    importTorchTraceLog(log, memory);
    const TraceData& kept = memory.data();
    ASSERT_FALSE(file.compiles.empty());
    EXPECT_EQ(kept.sessions.size(), file.sessions.size());
    EXPECT_EQ(kept.sessions[0].records, file.sessions[0].records);
    auto compileRows = [](const TraceData& t) {
        std::vector<std::string> rows;
        for (const Compile& c : t.compiles)
            rows.push_back(std::to_string(c.id) + " " + c.key.str() + " " + toString(c.status) + " " +
                           std::to_string(c.phases.size()) + " " + std::to_string(c.recompileReasons.size()));
        std::sort(rows.begin(), rows.end());
        return rows;
    };
    EXPECT_EQ(compileRows(kept), compileRows(file));
    EXPECT_EQ(kept.graphs.size(), file.graphs.size());
    EXPECT_EQ(kept.guards.size(), file.guards.size());
    EXPECT_EQ(kept.guardFailures.size(), file.guardFailures.size());
    EXPECT_EQ(kept.graphBreaks.size(), file.graphBreaks.size());
    EXPECT_EQ(kept.outputCode.size(), file.outputCode.size());
    EXPECT_EQ(kept.artifacts.size(), file.artifacts.size());
    EXPECT_EQ(kept.spans.size(), file.spans.size());
    EXPECT_EQ(kept.recordsWithoutCompileId.size(), file.recordsWithoutCompileId.size());
    EXPECT_EQ(kept.internedStrings, file.internedStrings);
    for (const OutputCode& code : kept.outputCode)
        for (const Kernel& kernel : code.kernels) {
            EXPECT_EQ(kernel.outputCodeId, code.id);
            EXPECT_EQ(kernel.compileId, code.compileId);
        }
}
