// TORCH_LOGS of the inductor's stages: ir_pre_fusion (the lowered buffers, one per graph value that needs memory or a
// computation), ir_post_fusion (the scheduled kernels in the kernel IR, and the extern calls between them), and the
// scheduler's own artifacts: fusion (each decision, in Inductor's fusion_log words) and schedule (each kernel's nodes).
#pragma once

#include <string>
#include <vector>

#include "inductor/scheduler.h"

namespace eng::inductor {

/// One line per lowered buffer: "buf3: Pointwise f32[8, 16] reads buf1, arg0_1 (mul, add)".
std::string preFusionText(const LoweredGraph& graph);
/// The schedule in execution order: each kernel's IR (kernelText) and each extern call with the buffers it reads.
std::string postFusionText(const Schedule& schedule, const LoweredGraph& graph);
/// TORCH_LOGS=fusion: "===== attempting fusion (1/10): N nodes =====", "fusing buf1 with buf0" or "cannot fuse buf2 with
/// buf1: reason" per decision, "completed fusion round (1/10): fused N nodes into M nodes", "===== fusion complete
/// (1 iterations) =====" (cwb's scheduler decides in one pass: one round).
std::string fusionLogText(const Schedule& schedule, const LoweredGraph& graph);
/// TORCH_LOGS=schedule: "Schedule:\n [SchedulerNode(name='buf0'), ...]" per generated kernel, its nodes in order.
std::vector<std::string> scheduleLogTexts(const Schedule& schedule, const LoweredGraph& graph);

}  // namespace eng::inductor
