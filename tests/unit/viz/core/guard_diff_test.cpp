// Guard matching rules of the recompile stepper's diff, on small hand-made guard lists.
#include "core/guard_diff.h"

#include <gtest/gtest.h>

namespace viz {
namespace {

traces::Guard guard(std::string kind, std::string source, std::string text) {
    traces::Guard g;
    g.kind = std::move(kind);
    g.source = std::move(source);
    g.text = std::move(text);
    return g;
}

std::vector<const traces::Guard*> pointers(const std::vector<traces::Guard>& guards) {
    std::vector<const traces::Guard*> out;
    for (const auto& g : guards) out.push_back(&g);
    return out;
}

std::string render(const std::vector<GuardChange>& changes) {
    std::string out;
    for (const GuardChange& change : changes) {
        const traces::Guard* shown = change.after ? change.after : change.before;
        out += std::string(guardChangeName(change.kind)) + ":" + shown->text + ";";
    }
    return out;
}

TEST(GuardDiff, SameSourceAndKindWithOtherTextIsAChange) {
    std::vector<traces::Guard> before{guard("TYPE_MATCH", "L['k']", "type(k) is int"), guard("EQUALS_MATCH", "L['k']", "k == 2")};
    std::vector<traces::Guard> after{guard("TYPE_MATCH", "L['k']", "type(k) is int"), guard("EQUALS_MATCH", "L['k']", "k == 3")};
    auto changes = diffGuards(pointers(before), pointers(after));
    EXPECT_EQ(render(changes), "unchanged:type(k) is int;changed:k == 3;");
    EXPECT_EQ(changes[1].before->text, "k == 2");
}

TEST(GuardDiff, OtherSourceIsAddedAndRemovedNotChanged) {
    std::vector<traces::Guard> before{guard("EQUALS_MATCH", "L['a']", "a == 1"), guard("ID_MATCH", "G['f']", "id(f)")};
    std::vector<traces::Guard> after{guard("EQUALS_MATCH", "L['b']", "b == 1"), guard("ID_MATCH", "G['f']", "id(f)")};
    auto changes = diffGuards(pointers(before), pointers(after));
    // The removed guard stays where it was: before the guard that followed it.
    EXPECT_EQ(render(changes), "removed:a == 1;added:b == 1;unchanged:id(f);");
    EXPECT_EQ(countChanges(changes).added, 1);
    EXPECT_EQ(countChanges(changes).removed, 1);
    EXPECT_EQ(countChanges(changes).changed, 0);
}

TEST(GuardDiff, RepeatedKindsPairIdenticalTextFirst) {
    std::vector<traces::Guard> before{guard("LAMBDA_GUARD", "L['x']", "x.size()[0] == 8"),
                                      guard("LAMBDA_GUARD", "L['x']", "x.size()[1] == 16")};
    std::vector<traces::Guard> after{guard("LAMBDA_GUARD", "L['x']", "x.size()[1] == 16"),
                                     guard("LAMBDA_GUARD", "L['x']", "2 <= x.size()[0] <= 512")};
    auto changes = diffGuards(pointers(before), pointers(after));
    EXPECT_EQ(render(changes), "unchanged:x.size()[1] == 16;changed:2 <= x.size()[0] <= 512;");
    EXPECT_EQ(changes[1].before->text, "x.size()[0] == 8");
}

TEST(GuardDiff, EmptySidesAreAllAddedOrAllRemoved) {
    std::vector<traces::Guard> some{guard("A", "", "one"), guard("B", "", "two")};
    EXPECT_EQ(render(diffGuards({}, pointers(some))), "added:one;added:two;");
    EXPECT_EQ(render(diffGuards(pointers(some), {})), "removed:one;removed:two;");
    EXPECT_TRUE(countChanges(diffGuards(pointers(some), pointers(some))).empty());
}

TEST(GuardDiff, DifferingSpanFindsTheChangedCharactersOfALongGuard) {
    std::string before = "check_tensor(L['x'], Tensor, torch.float32, requires_grad=False, size=[8, 16], stride=[16, 1])";
    std::string after = "check_tensor(L['x'], Tensor, torch.float32, requires_grad=False, size=[8, None], stride=[None, 1])";
    TextDifference difference = differingSpan(before, after);
    EXPECT_EQ(after.substr(difference.prefix, after.size() - difference.prefix - difference.suffix), "None], stride=[None");
    EXPECT_EQ(before.substr(difference.prefix, before.size() - difference.prefix - difference.suffix), "16], stride=[16");
    EXPECT_EQ(after.substr(difference.excerptStart), "size=[8, None], stride=[None, 1])");
    TextDifference same = differingSpan("k == 2", "k == 3");
    EXPECT_EQ(same.prefix, 5u);
    EXPECT_EQ(same.suffix, 0u);
    EXPECT_EQ(same.excerptStart, 0u);
}

}  // namespace
}  // namespace viz
