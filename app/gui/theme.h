// The workbench's colours and style: one colour per compile status everywhere (tlparse's: ok green, graph break
// lime, failed red, unknown purple; plus recompiled amber), code token colours, and the HiDPI-scaled style.
#pragma once

#include <imgui.h>

#include <cstdint>

#include "core/code_tokens.h"
#include "core/compile_state.h"

namespace app::theme {

ImU32 stateColor(viz::CompileState state);
/// Dark text or light text, whichever reads on stateColor(state).
ImU32 stateTextColor(viz::CompileState state);
ImU32 tokenColor(viz::TokenKind kind);

constexpr ImU32 kChangedRow = IM_COL32(170, 120, 20, 90);
constexpr ImU32 kAddedRow = IM_COL32(40, 150, 60, 80);
constexpr ImU32 kRemovedRow = IM_COL32(170, 40, 40, 80);
/// Outlines (0xRRGGBB) of graph nodes added and changed since the previous compile: the rows' hues, opaque.
constexpr uint32_t kAddedMark = 0x3cc45a;
constexpr uint32_t kChangedMark = 0xf0a020;
constexpr ImU32 kSearchMatch = IM_COL32(200, 170, 40, 90);
constexpr ImU32 kCurrentMatch = IM_COL32(240, 140, 20, 170);
inline const ImVec4 kDimText{0.60f, 0.62f, 0.66f, 1.0f};
inline const ImVec4 kWarningText{1.0f, 0.62f, 0.25f, 1.0f};
inline const ImVec4 kErrorText{1.0f, 0.42f, 0.40f, 1.0f};
inline const ImVec4 kAddedText{0.45f, 0.85f, 0.50f, 1.0f};
inline const ImVec4 kLinkText{0.45f, 0.72f, 1.0f, 1.0f};

/// Colours of the nested compile phases in the metrics view, outermost first.
ImU32 phaseColor(int depth);

/// Dark style with the workbench's rounding and spacing, scaled for HiDPI.
void applyStyle(float scale);
/// The scale the style was last applied at (1 on a normal screen, 2 at 192 dpi): for the few sizes that are
/// kept in logical pixels, such as the sidebar width in the config file.
float uiScale();

/// The monospace font loaded for code and guards (the UI font when none could be loaded).
ImFont* codeFont();

}  // namespace app::theme
