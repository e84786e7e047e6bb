// A run that dies mid-compile must leave a readable trace: a child process records, then exits without running
// any destructor (as a crash would); the parent reads what was committed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "../../traces/test_support.h"
#include "compile_event_scripts.h"
#include "record/trace_recorder.h"
#include "report/summary.h"
#include "store/trace_reader.h"

using namespace traces;
using namespace recordtest;

namespace {

/// Runs `body` in a child that then dies by `signal` (0: _exit(0)); returns the child's wait status.
template <typename Body>
int inDyingChild(Body body, int signal) {
    pid_t child = fork();
    if (child == 0) {
        body();
        if (signal != 0) std::raise(signal);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return status;
}

const Compile* findCompile(const TraceData& trace, const std::string& key) {
    for (const Compile& c : trace.compiles)
        if (c.key.str() == key) return &c;
    return nullptr;
}

}  // namespace

TEST(TraceRecorderCrash, CommittedCompilesSurviveAnAbortMidCompile) {
    testsupport::TempDir dir;
    std::string path = dir.file("crashed.db");
    int status = inDyingChild(
        [&] {
            // Leaked on purpose: the process dies with the recorder open, its writer thread still running.
            auto* recorder = new eng::record::TraceRecorder(path, {"programs/demo.py", "cwb 0.1.0"});
            playRecompile(*recorder);
            recorder->compileStarted(compileOf(key(1, 0), "g", 6), stackTo("g", 6));
            recorder->graphCaptured(key(1, 0), dynamoGraph("4"));
        },
        SIGABRT);
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(WTERMSIG(status), SIGABRT);

    TraceData trace = loadTrace(path);
    ASSERT_EQ(trace.sessions.size(), 1u);
    EXPECT_EQ(trace.sessions[0].kind, SessionKind::EngineRun);
    ASSERT_EQ(trace.compiles.size(), 3u);
    EXPECT_EQ(findCompile(trace, "0/0")->status, CompileStatus::Ok);
    EXPECT_EQ(findCompile(trace, "0/1")->status, CompileStatus::Ok);
    // The compile the crash interrupted was committed as it started: there, with nothing recorded about its end.
    const Compile* interrupted = findCompile(trace, "1/0");
    ASSERT_NE(interrupted, nullptr);
    EXPECT_TRUE(interrupted->started);
    EXPECT_EQ(interrupted->status, CompileStatus::Unknown);
    EXPECT_EQ(trace.guardFailures.size(), 1u);
    EXPECT_EQ(trace.guards.size(), 4u);
    // The interrupted compile's graph came after its last synchronous commit: whether the writer thread stored it
    // before the abort depends on scheduling, so it may or may not be there; the finished compiles' graphs are.
    EXPECT_GE(trace.graphs.size(), 2u);
    EXPECT_LE(trace.graphs.size(), 3u);
    SessionSummary summary = summarizeTrace(trace).front();
    EXPECT_EQ(summary.counts.recompiles, 1);
    EXPECT_EQ(summary.counts.compiles, 3);
}

TEST(TraceRecorderCrash, ExitWithoutClosingKeepsEveryFinishedCompile) {
    testsupport::TempDir dir;
    std::string path = dir.file("exited.db");
    int status = inDyingChild(
        [&] {
            auto* recorder = new eng::record::TraceRecorder(path, {"programs/demo.py", "cwb 0.1.0"});
            playBreakWithResume(*recorder);
        },
        0);
    ASSERT_TRUE(WIFEXITED(status));
    TraceData trace = loadTrace(path);
    ASSERT_EQ(trace.compiles.size(), 2u);
    for (const Compile& c : trace.compiles) EXPECT_EQ(c.status, CompileStatus::Ok) << c.key.str();
    EXPECT_EQ(trace.graphBreaks.size(), 1u);
    EXPECT_EQ(trace.graphs.size(), 2u);
    EXPECT_EQ(trace.sessions[0].records, 7);  // the session row is rewritten at every commit
}

TEST(TraceRecorderCrash, CrashBeforeAnyCompileLeavesTheSession) {
    testsupport::TempDir dir;
    std::string path = dir.file("early.db");
    int status = inDyingChild([&] { new eng::record::TraceRecorder(path, {"programs/demo.py", "cwb 0.1.0"}); },
                              SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status));
    TraceData trace = loadTrace(path);
    ASSERT_EQ(trace.sessions.size(), 1u);
    EXPECT_EQ(trace.sessions[0].sourceFile, "demo.py");
    EXPECT_TRUE(trace.compiles.empty());
}
