// Malformed logs: each kind of damage is reported with its line, and every valid record is still imported.
#include <gtest/gtest.h>

#include "importers/import_path.h"
#include "importers/torch_trace/log_records.h"
#include "parse/fx_graph_text.h"
#include "test_support.h"

using namespace traces;
using testsupport::ctx;

namespace {

const std::string kGraph =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, L_x_: \"f32[4][1]cpu\"):\n"
    "        l_x_ = L_x_\n"
    "        sin: \"f32[4][1]cpu\" = torch.sin(l_x_);  l_x_ = None\n"
    "        return (sin,)\n";

// Five valid records: str, dynamo_start, dynamo_output_graph, an artifact, compilation_metrics.
testsupport::LogBuilder validPrefix() {
    testsupport::LogBuilder b;
    b.record("{\"str\": [\"prog.py\", 0]}");
    b.record("{\"dynamo_start\": {\"stack\": [{\"line\": 3, \"name\": \"f\", \"filename\": 0}]}, " + ctx(0, 0) + "}");
    b.record("{\"dynamo_output_graph\": {\"sizes\": {}}, " + ctx(0, 0) + "}", kGraph);
    return b;
}

void addValidSuffix(testsupport::LogBuilder& b) {
    b.record("{\"artifact\": {\"name\": \"fx_graph_cache_miss\", \"encoding\": \"json\"}, " + ctx(0, 0) + "}",
             std::string("{\"key\": \"abc\"}"));
    b.record("{\"compilation_metrics\": {\"co_name\": \"f\", \"fail_type\": null, \"graph_op_count\": 1}, " +
             ctx(0, 0) + "}");
}

struct Imported {
    std::shared_ptr<testsupport::TempDir> dir;  // keeps the trace file for payload reads
    ImportResult result;
    TraceData trace;
};

Imported importText(const std::string& text) {
    auto dir = std::make_shared<testsupport::TempDir>();
    std::string log = dir->file("dedicated_log_torch_trace_test.log");
    testsupport::writeFile(log, text);
    auto results = importPath(log, dir->file("out.db"));
    return {dir, results.at(0), loadTrace(dir->file("out.db"))};
}

void expectAllValidRecordsKept(const Imported& imported) {
    EXPECT_EQ(imported.result.records, 5);
    EXPECT_EQ(imported.trace.graphs.size(), 1u);
    EXPECT_EQ(imported.trace.artifacts.size(), 1u);
    ASSERT_EQ(imported.trace.compiles.size(), 1u);
    EXPECT_EQ(imported.trace.compiles[0].status, CompileStatus::Ok);
}

/// Imports `damaged` (raw log text) between the valid records, and checks that every valid record was kept.
Imported importAmidValidRecords(const std::string& damaged) {
    auto b = validPrefix();
    b.raw(damaged);
    addValidSuffix(b);
    auto imported = importText(b.text());
    expectAllValidRecordsKept(imported);
    return imported;
}

const ImportIssue& onlyIssue(const Imported& imported) {
    EXPECT_EQ(imported.trace.issues.size(), 1u);
    return imported.trace.issues.at(0);
}

}  // namespace

TEST(MalformedInput, BadHeaderIsReportedWithLineAndColumn) {
    auto imported =
        importAmidValidRecords("V1122 06:30:xx.000000 762 torch/x.py:1] {\"str\": [\"lost\", 9]}\n\tits payload line\n");
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "bad_header");
    EXPECT_EQ(issue.line, 10);
    EXPECT_EQ(issue.column, 13);
    EXPECT_EQ(imported.result.malformedRecords, 1);
}

TEST(MalformedInput, BadJsonIsReportedAtTheByteWhereItBreaks) {
    auto imported = importAmidValidRecords("V1122 06:30:53.061000 762 torch/x.py:1] {\"artifact\": {\"name\": oops}}\n");
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "bad_json");
    EXPECT_EQ(issue.line, 10);
    EXPECT_GT(issue.column, 41);  // inside the JSON, not at its start
}

TEST(MalformedInput, NumberBeyondADoubleIsBadJsonNotACrash) {
    auto imported = importAmidValidRecords("V1122 06:30:53.061000 762 torch/x.py:1] {\"str\": [\"x\", 3916267e542]}\n");
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "bad_json");
    EXPECT_EQ(issue.line, 10);
    EXPECT_NE(issue.message.find("number overflow parsing '3916267e542'"), std::string::npos)
        << issue.message;
}

TEST(MalformedInput, Md5MismatchKeepsThePayloadAndSaysSo) {
    auto b = validPrefix();
    b.raw("V1122 06:30:53.061000 762 torch/x.py:1] {\"artifact\": {\"name\": \"dynamo_error\", \"encoding\": "
          "\"string\"}, " + ctx(0, 0) + ", \"has_payload\": \"00000000000000000000000000000000\"}\n\tTraceback\n");
    addValidSuffix(b);
    auto imported = importText(b.text());
    EXPECT_EQ(imported.result.records, 6);  // the damaged record is still imported
    ASSERT_EQ(imported.trace.artifacts.size(), 2u);
    EXPECT_FALSE(imported.trace.artifacts[0].payloadIntact);
    EXPECT_EQ(loadArtifactPayload(imported.trace.path, imported.trace.artifacts[0].id), "Traceback");
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "md5_mismatch");
    EXPECT_EQ(issue.line, 11);
}

TEST(MalformedInput, TruncatedPayloadIsReported) {
    auto b = validPrefix();
    b.raw("V1122 06:30:53.061000 762 torch/x.py:1] {\"inductor_output_code\": {\"filename\": \"a.py\"}, " +
          ctx(0, 0) + ", \"has_payload\": \"0123456789abcdef0123456789abcdef\"}\n");
    addValidSuffix(b);
    auto imported = importText(b.text());
    EXPECT_EQ(imported.result.records, 6);
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "truncated_payload");
    EXPECT_EQ(issue.line, 10);
}

TEST(MalformedInput, BinaryJunkIsReportedAndSkipped) {
    auto imported = importAmidValidRecords(std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0", 20) + "\n");
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "binary_data");
    EXPECT_EQ(issue.line, 10);
}

TEST(MalformedInput, OrphanPayloadLinesAreReportedAsARange) {
    testsupport::LogBuilder b;
    b.raw("\tstray one\n\tstray two\n");
    auto prefix = validPrefix();
    b.raw(prefix.text());
    addValidSuffix(b);
    auto imported = importText(b.text());
    expectAllValidRecordsKept(imported);
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "orphan_payload");
    EXPECT_EQ(issue.line, 1);
    EXPECT_NE(issue.message.find("1-2"), std::string::npos) << issue.message;
}

TEST(MalformedInput, EmptyFileGivesASessionWithOneIssue) {
    auto imported = importText("");
    EXPECT_EQ(imported.result.records, 0);
    ASSERT_EQ(imported.trace.sessions.size(), 1u);
    EXPECT_EQ(onlyIssue(imported).kind, "empty_file");
}

TEST(MalformedInput, FileCutMidRecordKeepsEverythingBeforeIt) {
    auto b = validPrefix();
    addValidSuffix(b);
    std::string text = b.text() + "V1122 06:30:53.061000 762 torch/x.py:1] {\"artifact\": {\"name\": \"cut";
    auto imported = importText(text);
    expectAllValidRecordsKept(imported);
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "bad_json");
    EXPECT_NE(issue.message.find("ends in the middle"), std::string::npos) << issue.message;
}

TEST(MalformedInput, LineLongerThanTheLimitIsSkippedInFlatMemory) {
    auto imported = importAmidValidRecords(std::string(kMaxLineBytes + (1u << 20), 'x') + "\n");
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "line_too_long");
    EXPECT_EQ(issue.line, 10);
    EXPECT_NE(issue.message.find(std::to_string(kMaxLineBytes + (1u << 20)) + " bytes"), std::string::npos) << issue.message;
}

TEST(MalformedInput, OverlongLastLineWithoutNewlineIsReported) {
    auto b = validPrefix();
    addValidSuffix(b);
    auto imported = importText(b.text() + std::string(kMaxLineBytes + 1, 'y'));
    expectAllValidRecordsKept(imported);
    EXPECT_EQ(onlyIssue(imported).kind, "line_too_long");
}

TEST(MalformedInput, GraphOfMoreNodesThanTheLimitKeepsItsTextOnly) {
    // A chain of sin nodes one past the limit: its text is stored, its nodes are not (as rows, a million nodes took
    // two gigabytes), and the import says so on the graph's line.
    std::string graph = "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"f32[4][1]cpu\"):\n        l_x_ = L_x_\n";
    std::string previous = "l_x_";
    for (size_t i = 0; i < kMaxGraphNodes; ++i) {
        const std::string name = "v" + std::to_string(i);
        graph += "        " + name + ": \"f32[4][1]cpu\" = torch.sin(" + previous + ");  " + previous + " = None\n";
        previous = name;
    }
    graph += "        return (" + previous + ",)\n";
    testsupport::LogBuilder b;
    b.record("{\"str\": [\"prog.py\", 0]}");
    b.record("{\"dynamo_start\": {\"stack\": [{\"line\": 3, \"name\": \"f\", \"filename\": 0}]}, " + ctx(0, 0) + "}");
    b.record("{\"dynamo_output_graph\": {\"sizes\": {}}, " + ctx(0, 0) + "}", graph);
    addValidSuffix(b);
    auto imported = importText(b.text());
    expectAllValidRecordsKept(imported);
    EXPECT_TRUE(imported.trace.graphs[0].nodes.empty());
    EXPECT_EQ(imported.trace.graphs[0].text, graph);
    const ImportIssue& issue = onlyIssue(imported);
    EXPECT_EQ(issue.kind, "graph_too_large");
    EXPECT_EQ(issue.line, 3);
    EXPECT_EQ(issue.message, "graph dynamo_output_graph has more than 250000 nodes: its text is kept, its nodes are not listed");
}
