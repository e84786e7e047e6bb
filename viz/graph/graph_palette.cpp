// Node and cluster colours (see graph_palette.h).
#include "graph/graph_palette.h"

#include <cmath>

namespace viz {
namespace {

uint32_t hsvToRgb(double hue, double saturation, double value) {
    double h = std::fmod(hue, 1.0) * 6.0;
    double c = value * saturation;
    double x = c * (1.0 - std::fabs(std::fmod(h, 2.0) - 1.0));
    double r = 0, g = 0, b = 0;
    switch (static_cast<int>(h)) {
        case 0: r = c; g = x; break;
        case 1: r = x; g = c; break;
        case 2: g = c; b = x; break;
        case 3: g = x; b = c; break;
        case 4: r = x; b = c; break;
        default: r = c; b = x; break;
    }
    double m = value - c;
    auto channel = [&](double v) { return static_cast<uint32_t>(std::lround((v + m) * 255.0)) & 0xff; };
    return (channel(r) << 16) | (channel(g) << 8) | channel(b);
}

constexpr double kGoldenAngle = 0.618033988749895;

}  // namespace

uint32_t kernelFill(int kernelIndex) { return hsvToRgb(0.08 + kernelIndex * kGoldenAngle, 0.42, 0.97); }

uint32_t kernelClusterFill(int kernelIndex) { return hsvToRgb(0.08 + kernelIndex * kGoldenAngle, 0.14, 0.99); }

uint32_t nodeKindFill(NodeKind kind) {
    switch (kind) {
        case NodeKind::Input: return 0xcfe2f3;
        case NodeKind::Output: return 0xd9d9d9;
        case NodeKind::Function: return 0xfff2cc;
        case NodeKind::Method: return 0xfce5cd;
        case NodeKind::Module: return 0xd9ead3;
        case NodeKind::Attribute: return 0xead1dc;
        case NodeKind::Other: return 0xeeeeee;
    }
    return 0xeeeeee;
}

}  // namespace viz
