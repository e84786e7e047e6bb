// torch._inductor.config as cwb knows it: each key with torch 2.11's default (which gives its type), whether cwb
// honours values away from what it always does, and what it does with them; and the options each torch.compile
// mode stands for (torch._inductor.list_mode_options). The torch module builds torch._inductor from these tables,
// torch.compile checks mode names against them, and the inductor backend checks options={...} by them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vm/value.h"

namespace eng::vm {

struct InductorConfigEntry {
    std::string name;    // "max_autotune", "triton.cudagraphs"
    Value torchDefault;  // torch 2.11's default; its kind is the option's type
    bool honoured;       // false: cwb only accepts False (it never does what True asks)
    std::string meaning; // what cwb does with it (or why it refuses it)
};

const std::vector<InductorConfigEntry>& inductorConfigEntries();

/// torch._inductor.list_mode_options(): each mode with the options it sets, in PyTorch's order.
using ModeOptions = std::vector<std::pair<std::string, std::vector<std::pair<std::string, bool>>>>;
const ModeOptions& compileModeOptions();

class Interpreter;
/// The torch._inductor.config entries the program set away from torch's defaults, as an options dict.
Value inductorConfigOverrides(Interpreter& vm);

}  // namespace eng::vm
