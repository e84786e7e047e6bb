// The tuning strings of CWB_CUDA_TUNING and CWB_FLASH_TUNING: items in order, bare keys as 1, the first unknown key.
#include "cuda/tuning_list.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

using Items = std::vector<std::pair<std::string, int>>;

TEST(TuningList, ReadsItemsInOrderWithBareKeysAsOne) {
    Items seen;
    const auto unknown = eng::cuda::forEachTuningItem("block=512,,online,partials=2048", [&](const std::string& key, int value) {
        seen.emplace_back(key, value);
        return true;
    });
    EXPECT_FALSE(unknown.has_value());
    EXPECT_EQ(seen, (Items{{"block", 512}, {"online", 1}, {"partials", 2048}}));
}

TEST(TuningList, StopsAtTheFirstUnknownKey) {
    Items seen;
    const auto unknown = eng::cuda::forEachTuningItem("keys=128,wrap=4,stages=3", [&](const std::string& key, int value) {
        if (key == "wrap") return false;
        seen.emplace_back(key, value);
        return true;
    });
    ASSERT_TRUE(unknown.has_value());
    EXPECT_EQ(*unknown, "wrap");
    EXPECT_EQ(seen, (Items{{"keys", 128}}));
}

TEST(TuningList, AnEmptySpecCallsNothing) {
    int calls = 0;
    EXPECT_FALSE(eng::cuda::forEachTuningItem("", [&](const std::string&, int) { return ++calls > 0; }).has_value());
    EXPECT_EQ(calls, 0);
}

}  // namespace
