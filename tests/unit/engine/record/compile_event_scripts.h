// Synthetic compile-event sequences, as the capture engine reports them, for driving the recorders in tests:
// a recompile with guard failures, a graph break with its resume function, a failed compile, a restart, and a
// function refused by the recompile limit. Messages follow Dynamo's wording.
#pragma once

#include <string>
#include <vector>

#include "capture/compile_events.h"

namespace recordtest {

using namespace traces;

inline const char* const kScript = "programs/demo.py";

inline CompileKey key(int frame, int compile, int attempt = 0) {
    CompileKey k;
    k.frameId = frame;
    k.frameCompileId = compile;
    k.attempt = attempt;
    return k;
}

inline Compile compileOf(const CompileKey& k, const std::string& function, int firstLine) {
    Compile c;
    c.key = k;
    c.function = function;
    c.file = kScript;
    c.firstLine = firstLine;
    c.startTime = 1700000000.0 + k.frameId.value_or(0) * 10 + k.frameCompileId.value_or(0);
    return c;
}

/// The compile as it finishes: counts and two nested phases filled in.
inline Compile finishedOf(const CompileKey& k, const std::string& function, int firstLine, int64_t ops) {
    Compile c = compileOf(k, function, firstLine);
    c.status = CompileStatus::Ok;
    c.opCount = ops;
    c.guardCount = 3;
    c.nodeCount = ops + 2;
    c.inputCount = 1;
    c.phases = {{"entire_frame_compile", 0.25}, {"backend_compile", 0.125}};
    return c;
}

/// The user stack at a call of `function` from main(), outermost first, ending at the compiled frame.
inline Stack stackTo(const std::string& function, int firstLine, int callLine = 30) {
    return {{"<string>", 1, "<module>", ""},
            {kScript, callLine, "main", "out = f(x)"},
            {kScript, firstLine, function, ""}};
}

inline Graph dynamoGraph(const std::string& shape) {
    Graph g;
    g.kind = GraphKind::Dynamo;
    g.text = "class GraphModule(torch.nn.Module):\n"
             "    def forward(self, L_x_: \"f32[" + shape + "][1]cpu\"):\n"
             "        l_x_ = L_x_\n"
             "\n"
             "        # File: programs/demo.py:4 in f, code: return torch.sin(x) + 1\n"
             "        sin: \"f32[" + shape + "][1]cpu\" = torch.sin(l_x_);  l_x_ = None\n"
             "        add: \"f32[" + shape + "][1]cpu\" = sin + 1;  sin = None\n"
             "        return (add,)\n";
    // The rows as the capture layer hands them over with the text (fx::graphNodeRows).
    const auto row = [&](int index, const char* name, const char* op, const char* target, std::vector<std::string> inputs) {
        GraphNode n;
        n.index = index;
        n.name = name;
        n.op = op;
        n.target = target;
        n.inputs = std::move(inputs);
        if (n.op != "output") {
            n.dtype = "f32";
            n.shape = "[" + shape + "]";
            n.stride = "[1]";
            n.device = "cpu";
        }
        return n;
    };
    g.nodes = {row(0, "l_x_", "placeholder", "L_x_", {}), row(1, "sin", "call_function", "torch.sin", {"l_x_"}),
               row(2, "add", "call_function", "operator.add", {"sin"}), row(3, "output", "output", "output", {"add"})};
    return g;
}

inline std::vector<Guard> guardsFor(const std::string& size) {
    std::vector<Guard> guards(2);
    guards[0].kind = "GuardManager";
    guards[0].text = "TREE_GUARD_MANAGER:";
    guards[1].kind = "TENSOR_MATCH";
    guards[1].source = "L['x']";
    guards[1].text =
        "check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, size=[" + size + "], stride=[1])";
    guards[1].depth = 1;
    return guards;
}

/// f(x) called with 4 elements, then with 8: [0/0], then [0/1] because the size guard of 0/0 failed.
inline void playRecompile(eng::capture::CompileEventSink& sink) {
    sink.compileStarted(compileOf(key(0, 0), "f", 3), stackTo("f", 3));
    sink.graphCaptured(key(0, 0), dynamoGraph("4"));
    sink.guardsInstalled(key(0, 0), guardsFor("4"));
    sink.compileFinished(finishedOf(key(0, 0), "f", 3, 2));
    sink.recompileReasons(key(0, 1),
                          {GuardFailure{0, 0, 0, "0/0", "tensor 'x' size mismatch at index 0. expected 4, actual 8"}});
    sink.compileStarted(compileOf(key(0, 1), "f", 3), stackTo("f", 3));
    sink.graphCaptured(key(0, 1), dynamoGraph("8"));
    sink.guardsInstalled(key(0, 1), guardsFor("8"));
    sink.compileFinished(finishedOf(key(0, 1), "f", 3, 2));
}

inline const std::string kPrintBreakMessage =
    "Failed to trace builtin operator\n"
    "  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] "
    "(has_kwargs False)\n"
    "  Hint: Avoid calling builtin `print` with argument types ['str'].\n"
    "\n"
    "  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False";

/// g(x) prints in its middle: [0/0] holds the graph before the break, [1/0] the resume function after it.
inline void playBreakWithResume(eng::capture::CompileEventSink& sink) {
    sink.compileStarted(compileOf(key(0, 0), "g", 6), stackTo("g", 6));
    GraphBreak b;
    b.reason = "Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):\n\n" +
               kPrintBreakMessage;
    b.userFile = kScript;
    b.userLine = 8;
    b.userStack = {{kScript, 30, "main", "out = g(x)"}, {kScript, 8, "g", "print(\"between the two graphs\")"}};
    sink.graphBreak(key(0, 0), b);
    sink.graphCaptured(key(0, 0), dynamoGraph("4"));
    sink.compileFinished(finishedOf(key(0, 0), "g", 6, 2));
    sink.compileStarted(compileOf(key(1, 0), "torch_dynamo_resume_in_g_at_8", 8),
                        stackTo("torch_dynamo_resume_in_g_at_8", 8));
    sink.graphCaptured(key(1, 0), dynamoGraph("4"));
    sink.compileFinished(finishedOf(key(1, 0), "torch_dynamo_resume_in_g_at_8", 8, 2));
}

/// The backend raised: Dynamo keeps no graph of that compile and falls back to eager.
inline void playFailedCompile(eng::capture::CompileEventSink& sink) {
    sink.compileStarted(compileOf(key(0, 0), "h", 12), stackTo("h", 12));
    sink.graphCaptured(key(0, 0), dynamoGraph("4"));
    Compile failed = finishedOf(key(0, 0), "h", 12, 2);
    failed.status = CompileStatus::Failed;
    failed.failType = "BackendCompilerFailed";
    failed.failReason = "backend='broken' raised:\nRuntimeError: no kernel for aten.sin";
    failed.failUserFile = kScript;
    failed.failUserLine = 13;
    sink.compileFinished(failed);
}

/// Attempt 0 of [0/0] is abandoned and analysis restarts as [0/0_1], which compiles.
inline void playRestart(eng::capture::CompileEventSink& sink) {
    sink.compileStarted(compileOf(key(0, 0), "k", 20), stackTo("k", 20));
    sink.graphCaptured(key(0, 0), dynamoGraph("4"));
    sink.compileStarted(compileOf(key(0, 0, 1), "k", 20), stackTo("k", 20));
    sink.graphCaptured(key(0, 0, 1), dynamoGraph("4"));
    Compile done = finishedOf(key(0, 0, 1), "k", 20, 2);
    done.restartReasons = {"'skip function graph_break in file programs/demo.py'"};
    sink.compileFinished(done);
}

/// f is called with 9 different sizes: [0/0] .. [0/7] compile, [0/8] is refused by the recompile limit (8).
inline void playRecompileLimit(eng::capture::CompileEventSink& sink) {
    for (int n = 0; n <= 7; ++n) {
        if (n > 0) {
            std::string reason = "tensor 'x' size mismatch at index 0. expected " + std::to_string(n) +
                                 ", actual " + std::to_string(n + 1);
            sink.recompileReasons(key(0, n), {GuardFailure{0, 0, 0, "0/" + std::to_string(n - 1), reason}});
        }
        sink.compileStarted(compileOf(key(0, n), "f", 3), stackTo("f", 3));
        sink.graphCaptured(key(0, n), dynamoGraph(std::to_string(n + 1)));
        sink.compileFinished(finishedOf(key(0, n), "f", 3, 2));
    }
    sink.recompileReasons(key(0, 8),
                          {GuardFailure{0, 0, 0, "0/7", "tensor 'x' size mismatch at index 0. expected 8, actual 9"}});
    sink.warning(key(0, 8), "torch._dynamo hit config.recompile_limit (8)\n   function: 'f' (programs/demo.py:3)");
}

}  // namespace recordtest
