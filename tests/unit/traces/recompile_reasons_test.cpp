// Tests for recompile_reasons payload reading and "compile id: reason" splitting.
#include "parse/recompile_reasons.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace traces {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(RecompileReasons, JsonListOneReasonPerEntry) {
    EXPECT_THAT(parseRecompileReasonsPayload("[\n"
                                             "\"0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4\",\n"
                                             "\"0/0: tensor 'x' size mismatch at index 0. expected 2, actual 4\"\n"
                                             "]"),
                ElementsAre("0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4",
                            "0/0: tensor 'x' size mismatch at index 0. expected 2, actual 4"));
}

TEST(RecompileReasons, JsonEscapesAreDecoded) {
    EXPECT_THAT(parseRecompileReasonsPayload(
                    "[\n\"1/0: ___stack0 == 128.8  # if s.item() > 0.0:\\nUser stack trace:\\n  File \\\"a.py\\\", line 8, "
                    "in f\\n    if s.item() > 0.0:\"\n]"),
                ElementsAre("1/0: ___stack0 == 128.8  # if s.item() > 0.0:\nUser stack trace:\n  File \"a.py\", line 8, "
                            "in f\n    if s.item() > 0.0:"));
}

TEST(RecompileReasons, BareStringIsOneReasonEvenOverSeveralLines) {
    EXPECT_THAT(parseRecompileReasonsPayload("0/0: tensor 'x' size mismatch at index 1. expected 16, actual 32"),
                ElementsAre("0/0: tensor 'x' size mismatch at index 1. expected 16, actual 32"));

    const char* multiLine = "0/0: G['USE_RELU'] == True                 # if USE_RELU:  # prog/flag.py:8 in f\n"
                            "User stack trace:\n"
                            "  File \"prog/flag.py\", line 8, in f\n"
                            "    if USE_RELU:\n";
    std::vector<std::string> reasons = parseRecompileReasonsPayload(multiLine);
    ASSERT_EQ(reasons.size(), 1u);
    EXPECT_EQ(reasons[0], std::string(multiLine).substr(0, std::string(multiLine).size() - 1));
}

TEST(RecompileReasons, JsonStringAndNonStringItems) {
    EXPECT_THAT(parseRecompileReasonsPayload("\"0/0: L['i'] == 1\""), ElementsAre("0/0: L['i'] == 1"));
    EXPECT_THAT(parseRecompileReasonsPayload("[\"a\", 3, null]"), ElementsAre("a", "3", "null"));
}

TEST(RecompileReasons, TruncatedListKeepsCompleteEntries) {
    EXPECT_THAT(parseRecompileReasonsPayload("[\n\"0/2: tensor 'x' dtype mismatch. expected Float, actual Double\",\n"
                                             "\"0/1: tensor 'x' size mism"),
                ElementsAre("0/2: tensor 'x' dtype mismatch. expected Float, actual Double", "0/1: tensor 'x' size mism"));
}

TEST(RecompileReasons, EmptyPayloads) {
    EXPECT_THAT(parseRecompileReasonsPayload(""), IsEmpty());
    EXPECT_THAT(parseRecompileReasonsPayload(" \n\t\n"), IsEmpty());
    EXPECT_THAT(parseRecompileReasonsPayload("[]"), IsEmpty());
}

TEST(GuardFailureSplit, CompileIdPrefixes) {
    ParsedGuardFailure plain = splitGuardFailure("0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16");
    EXPECT_EQ(plain.failedCompile, "0/0");
    EXPECT_EQ(plain.reason, "tensor 'x' size mismatch at index 0. expected 8, actual 16");

    ParsedGuardFailure autograd = splitGuardFailure("!0/1/0: ___check_obj_id(fn, 139870659812992)");
    EXPECT_EQ(autograd.failedCompile, "!0/1/0");
    EXPECT_EQ(autograd.reason, "___check_obj_id(fn, 139870659812992)");

    ParsedGuardFailure attempt = splitGuardFailure("3/2_1: len(L['ys']) == 2  # for y, z in zip(ys, zs):");
    EXPECT_EQ(attempt.failedCompile, "3/2_1");
    EXPECT_EQ(attempt.reason, "len(L['ys']) == 2  # for y, z in zip(ys, zs):");
}

TEST(GuardFailureSplit, LinesWithoutACompileId) {
    ParsedGuardFailure none = splitGuardFailure("tensor 'x' dtype mismatch. expected BFloat16, actual Float");
    EXPECT_TRUE(none.failedCompile.empty());
    EXPECT_EQ(none.reason, "tensor 'x' dtype mismatch. expected BFloat16, actual Float");

    ParsedGuardFailure notAnId = splitGuardFailure("L['x']: something: else");
    EXPECT_TRUE(notAnId.failedCompile.empty());
    EXPECT_EQ(notAnId.reason, "L['x']: something: else");

    ParsedGuardFailure empty = splitGuardFailure("");
    EXPECT_TRUE(empty.failedCompile.empty());
    EXPECT_TRUE(empty.reason.empty());
}

TEST(GuardFailureSplit, ListDashPaddingAndUserStackTail) {
    ParsedGuardFailure listed = splitGuardFailure("    - 0/0: ___check_obj_id(fn, 1)                   ");
    EXPECT_EQ(listed.failedCompile, "0/0");
    EXPECT_EQ(listed.reason, "___check_obj_id(fn, 1)");

    ParsedGuardFailure withStack = splitGuardFailure("1/0: ___stack0 == 128.8  # if s.item() > 0.0:\n"
                                                     "User stack trace:\n  File \"a.py\", line 8, in f\n    if s.item():");
    EXPECT_EQ(withStack.failedCompile, "1/0");
    EXPECT_EQ(withStack.reason, "___stack0 == 128.8  # if s.item() > 0.0:\nUser stack trace:\n  File \"a.py\", line 8, "
                                "in f\n    if s.item():");
}

}  // namespace
}  // namespace traces
