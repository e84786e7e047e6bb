// Tests for the spatial grid that culls and picks canvas items.
#include "layout/spatial_grid.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace viz {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SpatialGrid, FindsOverlappingItemsOnceInOrder) {
    std::vector<Rect> items{{0, 0, 10, 10}, {100, 100, 110, 110}, {5, 5, 200, 8}, {50, 0, 60, 400}};
    SpatialGrid grid;
    grid.build(items, 16);
    std::vector<int> hits;
    grid.query({0, 0, 20, 20}, hits);
    EXPECT_THAT(hits, ElementsAre(0, 2));
    hits.clear();
    grid.query({105, 105, 106, 106}, hits);
    EXPECT_THAT(hits, ElementsAre(1));
    hits.clear();
    grid.query({55, 300, 56, 301}, hits);  // the tall item (kept outside the cells) is still found
    EXPECT_THAT(hits, ElementsAre(3));
    hits.clear();
    grid.query({1000, 1000, 1001, 1001}, hits);
    EXPECT_THAT(hits, IsEmpty());
}

TEST(SpatialGrid, AgreesWithABruteForceScan) {
    std::mt19937 random(3);
    std::uniform_real_distribution<float> position(0, 5000);
    std::uniform_real_distribution<float> extent(1, 300);
    std::vector<Rect> items;
    for (int i = 0; i < 3000; ++i) {
        float x = position(random), y = position(random);
        items.push_back({x, y, x + extent(random), y + extent(random)});
    }
    SpatialGrid grid;
    grid.build(items, suggestedCellSize({0, 0, 5000, 5000}, items.size()));
    for (int q = 0; q < 50; ++q) {
        float x = position(random), y = position(random);
        Rect area{x, y, x + extent(random) * 3, y + extent(random) * 3};
        std::vector<int> expected;
        for (size_t i = 0; i < items.size(); ++i)
            if (items[i].overlaps(area)) expected.push_back(static_cast<int>(i));
        std::vector<int> hits;
        grid.query(area, hits);
        EXPECT_EQ(hits, expected);
    }
}

TEST(SpatialGrid, EmptyGrid) {
    SpatialGrid grid;
    grid.build({}, 10);
    std::vector<int> hits;
    grid.query({0, 0, 100, 100}, hits);
    EXPECT_THAT(hits, IsEmpty());
    EXPECT_EQ(grid.size(), 0u);
}

}  // namespace
}  // namespace viz
