// A uniform grid over item bounds, so that a frame touches only the nodes and edges in view and picking finds
// the node under the mouse without scanning thousands of boxes.
#pragma once

#include <cstdint>
#include <vector>

#include "layout/graph_layout.h"

namespace viz {

class SpatialGrid {
public:
    /// Indexes `items` (by position in the vector) in cells of about `cellSize` points.
    void build(const std::vector<Rect>& items, float cellSize);
    /// Appends to `out` the items whose rect overlaps `area`, each once, in ascending order.
    /// Not thread-safe: queries share scratch space (the UI thread is the only caller).
    void query(const Rect& area, std::vector<int>& out) const;
    size_t size() const { return items_.size(); }

private:
    int cellX(float x) const;
    int cellY(float y) const;

    std::vector<Rect> items_;
    Rect bounds_;
    float cellSize_ = 1;
    int columns_ = 0;
    int rows_ = 0;
    std::vector<uint32_t> cellStart_;  ///< CSR layout: items of cell c are cellItems_[cellStart_[c] .. cellStart_[c+1])
    std::vector<int> cellItems_;
    std::vector<int> oversized_;       ///< items spanning too many cells to register in each; tested directly
    mutable std::vector<uint32_t> seen_;
    mutable uint32_t stamp_ = 0;
};

/// A cell size that puts a handful of items in each cell for a drawing of that size.
float suggestedCellSize(const Rect& bounds, size_t itemCount);

}  // namespace viz
