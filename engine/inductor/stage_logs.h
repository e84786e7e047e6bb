// TORCH_LOGS of the inductor's stages: ir_pre_fusion (the lowered buffers, one per graph value that needs memory or a
// computation) and ir_post_fusion (the scheduled kernels in the kernel IR, and the extern calls between them).
#pragma once

#include <string>

#include "inductor/scheduler.h"

namespace eng::inductor {

/// One line per lowered buffer: "buf3: Pointwise f32[8, 16] reads buf1, arg0_1 (mul, add)".
std::string preFusionText(const LoweredGraph& graph);
/// The schedule in execution order: each kernel's IR (kernelText) and each extern call with the buffers it reads.
std::string postFusionText(const Schedule& schedule, const LoweredGraph& graph);

}  // namespace eng::inductor
