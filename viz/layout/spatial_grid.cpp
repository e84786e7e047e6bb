// Uniform-grid spatial index (see spatial_grid.h).
#include "layout/spatial_grid.h"

#include <algorithm>
#include <cmath>

namespace viz {
namespace {

/// Items covering more cells than this (long edges across the drawing) are kept in one list instead.
constexpr int kMaxCellsPerItem = 64;
constexpr int kMaxCellsPerAxis = 512;

}  // namespace

float suggestedCellSize(const Rect& bounds, size_t itemCount) {
    double area = std::max(1.0, static_cast<double>(bounds.width()) * bounds.height());
    double perItem = area / static_cast<double>(std::max<size_t>(itemCount, 1));
    return static_cast<float>(std::clamp(std::sqrt(perItem) * 2.0, 32.0, 4096.0));
}

int SpatialGrid::cellX(float x) const {
    return std::clamp(static_cast<int>(std::floor((x - bounds_.minX) / cellSize_)), 0, columns_ - 1);
}

int SpatialGrid::cellY(float y) const {
    return std::clamp(static_cast<int>(std::floor((y - bounds_.minY) / cellSize_)), 0, rows_ - 1);
}

void SpatialGrid::build(const std::vector<Rect>& items, float cellSize) {
    items_ = items;
    oversized_.clear();
    seen_.assign(items.size(), 0);
    stamp_ = 0;
    bounds_ = {};
    if (!items.empty()) {
        bounds_ = items[0];
        for (const Rect& r : items)
            bounds_ = {std::min(bounds_.minX, r.minX), std::min(bounds_.minY, r.minY), std::max(bounds_.maxX, r.maxX),
                       std::max(bounds_.maxY, r.maxY)};
    }
    float largestSide = std::max(bounds_.width(), bounds_.height());
    cellSize_ = std::max({cellSize, 1.0f, largestSide / kMaxCellsPerAxis});
    columns_ = std::max(1, static_cast<int>(std::ceil(bounds_.width() / cellSize_)) + 1);
    rows_ = std::max(1, static_cast<int>(std::ceil(bounds_.height() / cellSize_)) + 1);

    // Two passes (count, then fill) keep all cells in one allocation.
    std::vector<uint32_t> counts(static_cast<size_t>(columns_) * static_cast<size_t>(rows_) + 1, 0);
    auto forCells = [&](const Rect& r, auto&& visit) {
        for (int y = cellY(r.minY); y <= cellY(r.maxY); ++y)
            for (int x = cellX(r.minX); x <= cellX(r.maxX); ++x) visit(static_cast<size_t>(y) * columns_ + x);
    };
    auto cellCount = [&](const Rect& r) {
        return (cellX(r.maxX) - cellX(r.minX) + 1) * (cellY(r.maxY) - cellY(r.minY) + 1);
    };
    for (size_t i = 0; i < items.size(); ++i) {
        if (cellCount(items[i]) > kMaxCellsPerItem) oversized_.push_back(static_cast<int>(i));
        else forCells(items[i], [&](size_t cell) { ++counts[cell + 1]; });
    }
    for (size_t c = 1; c < counts.size(); ++c) counts[c] += counts[c - 1];
    cellStart_ = counts;
    cellItems_.assign(cellStart_.back(), 0);
    std::vector<uint32_t> fill(cellStart_.begin(), cellStart_.end() - 1);
    for (size_t i = 0; i < items.size(); ++i) {
        if (cellCount(items[i]) > kMaxCellsPerItem) continue;
        forCells(items[i], [&](size_t cell) { cellItems_[fill[cell]++] = static_cast<int>(i); });
    }
}

void SpatialGrid::query(const Rect& area, std::vector<int>& out) const {
    if (items_.empty() || !area.overlaps(bounds_)) return;
    if (++stamp_ == 0) {  // wrapped: old marks could collide with the new stamp
        std::fill(seen_.begin(), seen_.end(), 0);
        stamp_ = 1;
    }
    size_t first = out.size();
    auto take = [&](int item) {
        if (seen_[static_cast<size_t>(item)] == stamp_) return;
        seen_[static_cast<size_t>(item)] = stamp_;
        if (items_[static_cast<size_t>(item)].overlaps(area)) out.push_back(item);
    };
    for (int y = cellY(area.minY); y <= cellY(area.maxY); ++y)
        for (int x = cellX(area.minX); x <= cellX(area.maxX); ++x) {
            size_t cell = static_cast<size_t>(y) * columns_ + x;
            for (uint32_t k = cellStart_[cell]; k < cellStart_[cell + 1]; ++k) take(cellItems_[k]);
        }
    for (int item : oversized_) take(item);
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

}  // namespace viz
