// A small hand-built trace shaped like real TORCH_TRACE imports, shared by the summary and report tests:
// a function with graph breaks, a function recompiled twice, a failed compile, a restarted attempt, an old log.
#pragma once

#include "model/trace_model.h"

#include <string>
#include <utility>

namespace traces::report_fixture {

inline const std::string kPrintBreakReason =
    "Failed to trace builtin operator\n"
    "  Explanation: Dynamo does not know how to trace builtin operator `print` with argument types ['str'] "
    "(has_kwargs False)\n"
    "  Hint: Avoid calling builtin `print` with argument types ['str'].\n\n"
    "  Developer debug context: builtin print [<class 'torch._dynamo.variables.constant.ConstantVariable'>] False\n\n"
    " For more details about this graph break, please visit: "
    "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0059.html";

inline const std::string kItemBreakReason =
    "Unsupported Tensor.item() call with capture_scalar_outputs=False\n"
    "  Explanation: Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.";

inline const std::string kGuardWithStack =
    "G['USE_RELU'] == True  # if USE_RELU:  # model.py:14 in g\n"
    "User stack trace:\n"
    "  File \"model.py\", line 14, in g\n"
    "    if USE_RELU:";

inline Compile makeCompile(RowId id, RowId session, std::optional<RowId> site, int frame, int frameCompile,
                           int attempt, bool started, CompileStatus status, std::string function, int firstLine) {
    Compile compile;
    compile.id = id;
    compile.sessionId = session;
    compile.siteId = site;
    compile.key.frameId = frame;
    compile.key.frameCompileId = frameCompile;
    compile.key.attempt = attempt;
    compile.seq = id;
    compile.line = id * 10;
    compile.started = started;
    compile.status = status;
    compile.function = std::move(function);
    compile.file = "model.py";
    compile.firstLine = firstLine;
    return compile;
}

inline GraphNode makeNode(int index, std::string name, std::string op, std::string target) {
    GraphNode node;
    node.index = index;
    node.name = std::move(name);
    node.op = std::move(op);
    node.target = std::move(target);
    return node;
}

inline Graph makeDynamoGraph(RowId id, RowId session, RowId compile, std::vector<GraphNode> nodes) {
    Graph graph;
    graph.id = id;
    graph.sessionId = session;
    graph.compileId = compile;
    graph.seq = compile * 100 + id;
    graph.kind = GraphKind::Dynamo;
    graph.name = "dynamo_output_graph";
    graph.text = "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"f32[8]\"):\n        ...\n";
    graph.nodes = std::move(nodes);
    return graph;
}

inline GraphBreak makeBreak(RowId id, RowId session, RowId compile, std::string origin, std::string reason,
                            std::string type, std::string dedupKey, Stack stack) {
    GraphBreak graphBreak;
    graphBreak.id = id;
    graphBreak.sessionId = session;
    graphBreak.compileId = compile;
    graphBreak.seq = compile * 100 + id;
    graphBreak.origin = std::move(origin);
    graphBreak.reason = std::move(reason);
    graphBreak.breakType = std::move(type);
    graphBreak.dedupKey = std::move(dedupKey);
    graphBreak.userStack = std::move(stack);
    if (!graphBreak.userStack.empty()) {
        graphBreak.userFile = graphBreak.userStack.back().file;
        graphBreak.userLine = graphBreak.userStack.back().line;
    }
    graphBreak.text = "Graph break in user code at " + graphBreak.userFile + ":" + std::to_string(graphBreak.userLine);
    return graphBreak;
}

/// Session 1 (new log): f breaks twice on the same print in a helper and once on .item(); g is compiled
/// three times ([2/0], [2/1], [2/2] which restarts into [2/2_1]); h fails in the backend.
/// Session 2 (2024 log): only restart_reasons rows, no break artifacts, no rank.
inline TraceData makeReportTrace() {
    TraceData trace;
    trace.path = "runs/trace.cwb";
    trace.schemaVersion = 1;

    Session newLog;
    newLog.id = 1;
    newLog.sourceFile = "dedicated_log_torch_trace_rank_0.log";
    newLog.sourcePath = "logs/dedicated_log_torch_trace_rank_0.log";
    newLog.rank = 0;
    newLog.torchVersion = "2.8.0";
    newLog.records = 120;
    newLog.malformedRecords = 2;
    Session oldLog;
    oldLog.id = 2;
    oldLog.sourceFile = "comp_metrics.log";
    oldLog.sourcePath = "logs/comp_metrics.log";
    oldLog.records = 40;
    trace.sessions = {newLog, oldLog};

    Frame mainFrame{"main.py", 20, "main", "out = f(x)"};
    trace.sites = {
        {1, 1, "f", "model.py", 5, {mainFrame, {"model.py", 5, "f", "def f(x):"}}},
        {2, 1, "torch_dynamo_resume_in_f_at_7", "model.py", 7, {mainFrame, {"model.py", 7, "f", "log_value(x)"}}},
        {3, 1, "g", "model.py", 12, {{"main.py", 24, "main", "g(y)"}, {"model.py", 12, "g", "def g(x):"}}},
        {4, 1, "h", "model.py", 20, {{"main.py", 30, "main", "h(z)"}}},
        {5, 2, "fn", "test.py", 3, {{"test.py", 3, "fn", ""}}},
    };

    Compile f0 = makeCompile(101, 1, 1, 0, 0, 0, true, CompileStatus::Restarted, "f", 5);
    Compile f0Retry = makeCompile(102, 1, std::nullopt, 0, 0, 1, false, CompileStatus::Ok, "f", 5);
    f0Retry.restartReasons = {kPrintBreakReason};
    f0Retry.opCount = 2;
    f0Retry.guardCount = 2;
    f0Retry.phases = {{"entire_frame_compile", 1.5}, {"backend_compile", 1.0}};
    Compile resume = makeCompile(103, 1, 2, 1, 0, 0, true, CompileStatus::Ok, "torch_dynamo_resume_in_f_at_7", 7);
    resume.phases = {{"entire_frame_compile", 0.5}};
    Compile g0 = makeCompile(104, 1, 3, 2, 0, 0, true, CompileStatus::Ok, "g", 12);
    g0.opCount = 1;
    Compile g1 = makeCompile(105, 1, 3, 2, 1, 0, true, CompileStatus::Ok, "g", 12);
    g1.opCount = 1;
    Compile g2 = makeCompile(106, 1, 3, 2, 2, 0, true, CompileStatus::Restarted, "g", 12);
    Compile g2Retry = makeCompile(107, 1, std::nullopt, 2, 2, 1, false, CompileStatus::Ok, "g", 12);
    g2Retry.opCount = 1;
    g2Retry.recompileReasons = {"2/1: tensor 'x' dtype mismatch. expected Float, actual BFloat16"};
    Compile h0 = makeCompile(108, 1, 4, 3, 0, 0, true, CompileStatus::Failed, "h", 20);
    h0.failType = "BackendCompilerFailed";
    h0.failReason = "backend='broken_backend' raised:\nRuntimeError: broken <backend> & co";
    h0.failUserFile = "model.py";
    h0.failUserLine = 22;
    h0.phases = {{"entire_frame_compile", 0.25}};
    Compile old0 = makeCompile(201, 2, 5, 0, 0, 0, true, CompileStatus::Restarted, "fn", 3);
    Compile old0Retry = makeCompile(202, 2, std::nullopt, 0, 0, 1, false, CompileStatus::Ok, "fn", 3);
    old0Retry.restartReasons = {"'skip function graph_break in file torch/_dynamo/decorators.py'"};
    Compile old1 =
        makeCompile(203, 2, std::nullopt, 1, 0, 1, false, CompileStatus::Ok, "torch_dynamo_resume_in_fn_at_9", 9);
    old1.restartReasons = old0Retry.restartReasons;
    trace.compiles = {f0, f0Retry, resume, g0, g1, g2, g2Retry, h0, old0, old0Retry, old1};

    trace.graphs = {
        makeDynamoGraph(1, 1, 102, {makeNode(0, "l_x_", "placeholder", "L_x_"),
                                    makeNode(1, "sin", "call_function", "torch.sin"),
                                    makeNode(2, "cos", "call_function", "torch.cos"),
                                    makeNode(3, "output", "output", "output")}),
        makeDynamoGraph(2, 1, 103, {makeNode(0, "l_x_", "placeholder", "L_x_"),
                                    makeNode(1, "mul", "call_function", "operator.mul"),
                                    makeNode(2, "sum_1", "call_method", "sum"),
                                    makeNode(3, "fc", "call_module", "self.fc"),
                                    makeNode(4, "output", "output", "output")}),
        makeDynamoGraph(3, 1, 104, {}),
        makeDynamoGraph(4, 1, 105, {}),
        makeDynamoGraph(5, 1, 107, {}),
        makeDynamoGraph(6, 2, 202, {}),
    };
    Graph forward = makeDynamoGraph(7, 1, 102, {});
    forward.kind = GraphKind::AotForward;
    forward.name = "aot_forward_graph";
    trace.graphs.push_back(forward);

    trace.guards = {
        {1, 102, 0, "TENSOR_MATCH", "L['x']", "TENSOR_MATCH: check_tensor(L['x'], Tensor, [8], [1])",
         "x is a float32 tensor of shape [8]", "def f(x):", 0},
        {2, 102, 1, "LAMBDA_GUARD", "L['x']", "L['x'].size()[0] < 16 and flag & 1",
         "x's first dimension is below 16", "", 1},
        {3, 104, 0, "TENSOR_MATCH", "L['x']", "TENSOR_MATCH: check_tensor(L['x'], Tensor, [8], [1])",
         "x is a float32 tensor of shape [8]", "", 0},
        {4, 104, 1, "TYPE_MATCH", "L['y']", "___check_type_id(L['y'], 1) | ___check_obj_id(L['z'], 2)",
         "y has the type it had when compiled", "", 0},
    };
    trace.guardFailures = {
        {1, 105, 0, "2/0", "tensor 'x' size mismatch at index 0. expected 8, actual 16"},
        {2, 106, 0, "2/1", kGuardWithStack},
        {3, 106, 1, "2/0", "tensor 'x' size mismatch at index 0. expected 8, actual 4"},
    };

    Stack printStackFromF = {mainFrame, {"model.py", 7, "f", "log_value(x)"},
                             {"helpers.py", 3, "log_value", "print(\"value\", v)"}};
    Stack printStackFromResume = {mainFrame, {"model.py", 8, "torch_dynamo_resume_in_f_at_7", "log_value(x)"},
                                  {"helpers.py", 3, "log_value", "print(\"value\", v)"}};
    Stack itemStack = {mainFrame, {"model.py", 9, "torch_dynamo_resume_in_f_at_7", "if x.sum().item() > 0:"}};
    trace.graphBreaks = {
        makeBreak(1, 1, 101, "artifact", kPrintBreakReason, "Failed to trace builtin operator", "print@helpers.py:3",
                  printStackFromF),
        makeBreak(2, 1, 102, "restart", kPrintBreakReason, "Failed to trace builtin operator", "print@helpers.py:3",
                  {}),
        makeBreak(3, 1, 103, "artifact", kPrintBreakReason, "Failed to trace builtin operator", "print@helpers.py:3",
                  printStackFromResume),
        makeBreak(4, 1, 103, "artifact", kItemBreakReason, "Unsupported Tensor.item() call", "item@model.py:9",
                  itemStack),
        makeBreak(5, 2, 202, "restart", old0Retry.restartReasons[0], "", "skip graph_break", {}),
        makeBreak(6, 2, 203, "restart", old0Retry.restartReasons[0], "", "skip graph_break", {}),
    };

    OutputCode wrapper;
    wrapper.id = 1;
    wrapper.sessionId = 1;
    wrapper.compileId = 102;
    wrapper.seq = 10250;
    wrapper.event = "inductor_output_code";
    wrapper.filename = "/tmp/torchinductor/ab/cabc.py";
    wrapper.language = "python";
    wrapper.source = "# AOT ID: ['0_inference']\ndef call(args):\n    triton_poi_fused_sin_0.run(buf0)\n";
    Kernel kernel;
    kernel.id = 1;
    kernel.outputCodeId = 1;
    kernel.compileId = 102;
    kernel.name = "triton_poi_fused_sin_0";
    kernel.language = "triton";
    kernel.source = "@triton.jit\ndef triton_poi_fused_sin_0(in_ptr0, out_ptr0, xnumel, XBLOCK: tl.constexpr):\n"
                    "    \"\"\"```fenced``` in a docstring\"\"\"\n    xmask = xindex < xnumel\n";
    wrapper.kernels = {kernel};
    OutputCode second = wrapper;
    second.id = 2;
    second.compileId = 104;
    second.seq = 10450;
    second.kernels.clear();
    OutputCode aotDump = second;
    aotDump.id = 3;
    aotDump.event = "graph_dump";
    aotDump.language = "cpp";
    trace.outputCode = {wrapper, second, aotDump};

    trace.issues = {
        {1, 42, 7, "bad_json", "unexpected '<' in JSON at column 7"},
        {1, 7, 1, "md5_mismatch", "payload md5 does not match the header"},
    };
    return trace;
}

}  // namespace traces::report_fixture
