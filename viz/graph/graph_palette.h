// Fill colours of graph nodes and clusters as 0xRRGGBB, shared by the canvas and the DOT/SVG/PNG exports so
// that an exported picture looks like the workbench.
#pragma once

#include <cstdint>

#include "graph/graph_model.h"

namespace viz {

/// A light colour per fusion group; neighbouring indices get far-apart hues (golden-angle steps).
uint32_t kernelFill(int kernelIndex);
/// Nodes without kernel information, by what they are.
uint32_t nodeKindFill(NodeKind kind);
/// Compute nodes that no kernel claimed although the graph has kernel information (extern mm, views).
constexpr uint32_t kUnfusedFill = 0xe8e8e8;
constexpr uint32_t kFoldedFill = 0xd9d2e9;
constexpr uint32_t kFoldClusterFill = 0xf4f1fa;

/// The same hue as kernelFill, lighter, for the cluster box behind a kernel's nodes.
uint32_t kernelClusterFill(int kernelIndex);

}  // namespace viz
