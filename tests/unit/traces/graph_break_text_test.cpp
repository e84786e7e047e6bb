// Tests for parseGraphBreakText / parseRestartReason on reports shaped like Dynamo's graph-break messages.
#include "parse/graph_break_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string_view>

namespace traces {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

constexpr std::string_view kPrintBreak = R"GB(Graph break in user code at app/steps.py:7
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

Failed to trace builtin operator
  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] (has_kwargs False)
  Hint: Avoid calling builtin `print` with argument types ['str'].

  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html

User code traceback:
  File "<string>", line 1, in <module>
  File "app/main.py", line 40, in main
    out = step(x)
  File "app/steps.py", line 7, in step
    print("between the two graphs")

Traceback (most recent call last):
  File "/venv/torch/_dynamo/symbolic_convert.py", line 1001, in wrapper
    return inner_fn(self, inst)
           ^^^^^^^^^^^^^^^^^^^^
torch._dynamo.exc.Unsupported: Failed to trace builtin operator
)GB";

TEST(GraphBreakText, CurrentFormatWithUserTraceback) {
    ParsedGraphBreak parsed = parseGraphBreakText(kPrintBreak);
    EXPECT_EQ(parsed.breakType, "Failed to trace builtin operator");
    EXPECT_EQ(parsed.userFile, "app/steps.py");
    EXPECT_EQ(parsed.userLine, 7);
    EXPECT_THAT(parsed.reason, StartsWith("Encountered graph break when attempting to trace CALL"));
    EXPECT_THAT(parsed.reason, HasSubstr("\nFailed to trace builtin operator\n  Explanation: Dynamo does not know"));
    EXPECT_THAT(parsed.reason, HasSubstr("gb0059.html"));
    EXPECT_THAT(parsed.reason, Not(HasSubstr("User code traceback")));
    EXPECT_THAT(parsed.reason, Not(HasSubstr("symbolic_convert")));

    ASSERT_EQ(parsed.userStack.size(), 3u);
    EXPECT_EQ(parsed.userStack[0].file, "<string>");
    EXPECT_EQ(parsed.userStack[0].line, 1);
    EXPECT_EQ(parsed.userStack[0].function, "<module>");
    EXPECT_TRUE(parsed.userStack[0].source.empty());
    EXPECT_EQ(parsed.userStack[1].file, "app/main.py");
    EXPECT_EQ(parsed.userStack[1].source, "out = step(x)");
    EXPECT_EQ(parsed.userStack[2].function, "step");
    EXPECT_EQ(parsed.userStack[2].source, "print(\"between the two graphs\")");

    EXPECT_EQ(graphBreakDedupKey(parsed), "Failed to trace builtin operator@app/steps.py:7");
}

TEST(GraphBreakText, DynamoFramesAndCaretLinesAreDropped) {
    ParsedGraphBreak parsed = parseGraphBreakText(R"GB(Graph break in user code at /home/u/model.py:21
Graph Break Reason: Data-dependent branching
  Explanation: Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`).
User code traceback:
  File "/home/u/model.py", line 30, in forward
    y = self.block(x)
        ^^^^^^^^^^^^^
  File "/venv/lib/python3.12/site-packages/torch/_dynamo/polyfills/__init__.py", line 12, in wrapper
    return fn(*args)
  File "/home/u/model.py", line 21, in block
    if x.sum() > 0:
       ~~~~~~~^^^
)GB");
    EXPECT_EQ(parsed.breakType, "Data-dependent branching");
    ASSERT_EQ(parsed.userStack.size(), 2u);
    EXPECT_EQ(parsed.userStack[0].line, 30);
    EXPECT_EQ(parsed.userStack[0].source, "y = self.block(x)");
    EXPECT_EQ(parsed.userStack[1].function, "block");
    EXPECT_EQ(parsed.userStack[1].source, "if x.sum() > 0:");
    EXPECT_EQ(graphBreakDedupKey(parsed), "Data-dependent branching@/home/u/model.py:21");
}

TEST(GraphBreakText, SuppressedDuplicateVariantHasNoStack) {
    ParsedGraphBreak parsed = parseGraphBreakText(
        "Graph break (user stack suppressed due to duplicate graph break) in user code at app/loop.py:12\n"
        "Graph Break Reason: Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
        "  Explanation: Dynamo does not support tracing `Tensor.item()`.\n");
    EXPECT_EQ(parsed.userFile, "app/loop.py");
    EXPECT_EQ(parsed.userLine, 12);
    EXPECT_EQ(parsed.breakType, "Unsupported Tensor.item() call with capture_scalar_outputs=False");
    EXPECT_THAT(parsed.userStack, IsEmpty());
    EXPECT_EQ(parsed.reason, "Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
                             "  Explanation: Dynamo does not support tracing `Tensor.item()`.");
}

TEST(GraphBreakText, VerboseSeparatorAndNoteAreSkipped) {
    ParsedGraphBreak parsed = parseGraphBreakText(R"GB(Graph break in user code at a.py:5
Graph Break Reason: Call to `torch._dynamo.graph_break()`
User code traceback:
  File "run.py", line 3, in <module>
    f(x)
========== most recent `torch.compile` tracing attempt started here ==========
  File "a.py", line 5, in f
    torch._dynamo.graph_break()

NOTE: the most recent `torch.compile` tracing attempt might not be where you applied `torch.compile`!
)GB");
    ASSERT_EQ(parsed.userStack.size(), 2u);
    EXPECT_EQ(parsed.userStack[1].file, "a.py");
    EXPECT_EQ(parsed.userStack[1].source, "torch._dynamo.graph_break()");
    EXPECT_EQ(parsed.breakType, "Call to `torch._dynamo.graph_break()`");
}

TEST(GraphBreakText, HeaderlessTextAndInnermostFrameFallback) {
    ParsedGraphBreak bare = parseGraphBreakText("\ncall_function BuiltinVariable(list) [UserDefinedObjectVariable(chain)] {}\n");
    EXPECT_EQ(bare.reason, "call_function BuiltinVariable(list) [UserDefinedObjectVariable(chain)] {}");
    EXPECT_EQ(bare.breakType, bare.reason);
    EXPECT_TRUE(bare.userFile.empty());

    ParsedGraphBreak noHeader = parseGraphBreakText("Graph Break Reason: Unsupported context manager\n"
                                                    "User code traceback:\n"
                                                    "  File \"m.py\", line 9, in g\n"
                                                    "    with ctx():\n");
    EXPECT_EQ(noHeader.userFile, "m.py");
    EXPECT_EQ(noHeader.userLine, 9);
    EXPECT_EQ(graphBreakDedupKey(noHeader), "Unsupported context manager@m.py:9");
}

TEST(GraphBreakText, EmptyAndMalformedInput) {
    ParsedGraphBreak empty = parseGraphBreakText("");
    EXPECT_TRUE(empty.reason.empty());
    EXPECT_TRUE(empty.breakType.empty());
    EXPECT_EQ(empty.userLine, 0);
    EXPECT_EQ(graphBreakDedupKey(empty), "@:0");

    ParsedGraphBreak odd = parseGraphBreakText("Graph break in user code at no-line-number\n"
                                               "Graph Break Reason: x\n"
                                               "User code traceback:\n"
                                               "  File \"a.py\", line oops, in f\n"
                                               "  File \"b.py\"\n");
    EXPECT_EQ(odd.userFile, "no-line-number");
    EXPECT_EQ(odd.userLine, 0);
    EXPECT_THAT(odd.userStack, IsEmpty());
}

TEST(GraphBreakText, RestartReasonsOfCompilationMetrics) {
    ParsedGraphBreak skip = parseRestartReason("'skip function graph_break in file /src/torch/_dynamo/decorators.py'");
    EXPECT_EQ(skip.reason, "skip function graph_break in file /src/torch/_dynamo/decorators.py");
    EXPECT_EQ(skip.breakType, "skip function graph_break");
    EXPECT_THAT(skip.userStack, IsEmpty());

    ParsedGraphBreak restart = parseRestartReason("<class 'torch._dynamo.exc.TensorifyScalarRestartAnalysis'>");
    EXPECT_EQ(restart.breakType, "TensorifyScalarRestartAnalysis");

    ParsedGraphBreak current = parseRestartReason("Failed to trace builtin operator\n  Explanation: Dynamo does not "
                                                  "know how to trace builtin operator `print`\n\n  Hint: Avoid it.");
    EXPECT_EQ(current.breakType, "Failed to trace builtin operator");
    EXPECT_THAT(current.reason, HasSubstr("Hint: Avoid it."));
    EXPECT_TRUE(current.userFile.empty());

    EXPECT_EQ(parseRestartReason("").breakType, "");
}

TEST(GraphBreakText, TracebackFileLines) {
    std::optional<Frame> frame = parseTracebackFileLine("  File \"/a b/c.py\", line 12, in <lambda>");
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->file, "/a b/c.py");
    EXPECT_EQ(frame->line, 12);
    EXPECT_EQ(frame->function, "<lambda>");
    EXPECT_FALSE(parseTracebackFileLine("    print(x)").has_value());
    EXPECT_FALSE(parseTracebackFileLine("File \"x.py\", line , in f").has_value());
    EXPECT_FALSE(parseTracebackFileLine("").has_value());
}

TEST(GraphBreakText, GraphBreakTypeHeadlines) {
    EXPECT_EQ(graphBreakType("Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):\n\n"
                             "Unsupported method call\n  Explanation: x"),
              "Unsupported method call");
    EXPECT_EQ(graphBreakType("Encountered graph break when attempting to trace CALL:"),
              "Encountered graph break when attempting to trace CALL:");
    EXPECT_EQ(graphBreakType("\n\n  generic_jump TensorVariable()\n"), "generic_jump TensorVariable()");
}

}  // namespace
}  // namespace traces
