// LogRecordReader and the glog header parser: records, payload reconstruction, and where problems are.
#include <gtest/gtest.h>

#include "importers/torch_trace/glog_header.h"
#include "importers/torch_trace/log_records.h"
#include "test_support.h"

using namespace traces;

TEST(GlogHeader, ParsesEveryField) {
    GlogHeader h;
    int col = 0;
    const char* expected = "";
    std::string line = "V1122 06:30:53.061000 762 torch/_logging/structured.py:28] {\"str\": [\"a\", 0]}";
    ASSERT_TRUE(parseGlogHeader(line, h, col, expected));
    EXPECT_EQ(h.level, 'V');
    EXPECT_EQ(h.month, 11);
    EXPECT_EQ(h.day, 22);
    EXPECT_EQ(h.second, 53);
    EXPECT_EQ(h.microsecond, 61000);
    EXPECT_EQ(h.processId, 762);
    EXPECT_EQ(h.emitterFile, "torch/_logging/structured.py");
    EXPECT_EQ(h.emitterLine, 28);
    EXPECT_EQ(h.json, "{\"str\": [\"a\", 0]}");
}

TEST(GlogHeader, AcceptsThreadIdsAndAbsolutePaths) {
    GlogHeader h;
    int col = 0;
    const char* expected = "";
    std::string line = "V0401 10:11:12.123000 140234567890123 /data/fbcode/torch/_dynamo/utils.py:7] {}";
    ASSERT_TRUE(parseGlogHeader(line, h, col, expected));
    EXPECT_EQ(h.processId, 140234567890123);
    EXPECT_EQ(h.emitterFile, "/data/fbcode/torch/_dynamo/utils.py");
}

TEST(GlogHeader, SaysWhereAndWhatWasExpected) {
    GlogHeader h;
    int col = 0;
    const char* expected = "";
    EXPECT_FALSE(parseGlogHeader("X1122 06:30:53.061000 762 a.py:1] {}", h, col, expected));
    EXPECT_EQ(col, 1);
    EXPECT_FALSE(parseGlogHeader("V1122 06:3x:53.061000 762 a.py:1] {}", h, col, expected));
    EXPECT_EQ(col, 11);  // the x
    EXPECT_NE(std::string(expected).find("time"), std::string::npos);
    EXPECT_FALSE(parseGlogHeader("V1122 06:30:53.061000 762 a.py:1] not json", h, col, expected));
    EXPECT_EQ(col, 35);  // where the JSON should start
}

TEST(GlogHeader, RefusesNumbersTooLongToHold) {
    GlogHeader h;
    int col = 0;
    const char* expected = nullptr;
    EXPECT_FALSE(parseGlogHeader("V1122 06:30:53.061000 762 a.py:21266666666] {}", h, col, expected));
    EXPECT_STREQ(expected, "a line number after the emitting source path");
    EXPECT_FALSE(parseGlogHeader("V1122 06:30:53.061000 12345678901234567890 a.py:1] {}", h, col, expected));
    EXPECT_STREQ(expected, "a process or thread id of at most 18 digits");
    EXPECT_EQ(col, 41);
    ASSERT_TRUE(parseGlogHeader("V1122 06:30:53.061000 123456789012345678 a.py:999999999] {}", h, col, expected));
    EXPECT_EQ(h.processId, 123456789012345678);
    EXPECT_EQ(h.emitterLine, 999999999);
}

TEST(LogRecordReader, RebuildsPayloadsAndSkipsBlankLines) {
    testsupport::TempDir dir;
    std::string path = dir.file("a.log");
    testsupport::writeFile(path,
                           "V1122 06:30:53.061000 1 a.py:1] {\"str\": [\"x\", 0]}\n"
                           "\n"
                           "V1122 06:30:53.062000 1 a.py:2] {\"artifact\": {}, \"has_payload\": \"0\"}\n"
                           "\tline one\n"
                           "\t\n"
                           "\n"
                           "\t\tindented\n"
                           "V1122 06:30:53.063000 1 a.py:3] {\"str\": [\"y\", 1]}\n");
    std::vector<LogProblem> problems;
    LogRecordReader reader(path, [&](LogProblem p) { problems.push_back(p); });
    LogRecord r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.line, 1);
    EXPECT_EQ(r.payloadLines, 0);
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.line, 3);
    EXPECT_EQ(r.payload, "line one\n\n\tindented");
    EXPECT_EQ(r.payloadLines, 3);
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.line, 8);
    EXPECT_FALSE(reader.next(r));
    EXPECT_TRUE(problems.empty());
}

TEST(LogRecordReader, HandlesLinesLongerThanItsBuffer) {
    testsupport::TempDir dir;
    std::string path = dir.file("long.log");
    std::string big(9u << 20, 'x');  // more than two read chunks in one payload line
    testsupport::writeFile(path, "V1122 06:30:53.061000 1 a.py:1] {\"artifact\": {}}\n\t" + big +
                                     "\nV1122 06:30:53.061000 1 a.py:1] {\"str\": [\"y\", 1]}\n");
    LogRecordReader reader(path, [](LogProblem) {});
    LogRecord r;
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.payload.size(), big.size());
    ASSERT_TRUE(reader.next(r));
    EXPECT_EQ(r.line, 3);
    EXPECT_FALSE(r.cutShort);
}
