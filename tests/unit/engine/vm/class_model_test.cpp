// Classes' method resolution order (engine/vm/class_model.cpp): C3 as CPython computes it, the lookups that follow
// it (attributes, super()'s continuation, subclass tests) and CPython's TypeErrors for bases with no order.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "vm/errors.h"
#include "vm/value.h"

namespace {

using eng::vm::ClassObject;
using Ref = std::shared_ptr<ClassObject>;

Ref object() {
    static Ref root = std::make_shared<ClassObject>("object", nullptr);
    return root;
}

Ref make(const std::string& name, std::vector<Ref> bases = {}) {
    if (bases.empty()) bases.push_back(object());
    auto cls = std::make_shared<ClassObject>(name, std::move(bases));
    cls->module = "__main__";
    return cls;
}

std::string names(const ClassObject& cls) {
    std::string out;
    for (const ClassObject* c : cls.mro()) out += (out.empty() ? "" : " ") + c->name;
    return out;
}

std::string typeErrorOf(const std::string& name, std::vector<Ref> bases) {
    try {
        make(name, std::move(bases));
    } catch (const eng::vm::VmError& e) {
        return e.pythonClass() + ": " + e.what();
    }
    return "no error";
}

TEST(ClassModel, DiamondFollowsC3) {
    Ref a = make("A");
    Ref b = make("B", {a});
    Ref c = make("C", {a});
    Ref d = make("D", {b, c});
    EXPECT_EQ(names(*d), "D B C A object");
    EXPECT_TRUE(d->isSubclassOf(*c));
    EXPECT_TRUE(d->isSubclassOf(*a));
    EXPECT_FALSE(c->isSubclassOf(*b));
    ASSERT_EQ(d->bases.size(), 2u);
    EXPECT_EQ(d->bases[1], c);
}

// The example of "The Python 2.3 Method Resolution Order": A(B, C), B(D, E), C(D, F).
TEST(ClassModel, MergesLikeCPythonsDocumentedExample) {
    Ref f = make("F"), e = make("E"), d = make("D");
    Ref c = make("C", {d, f});
    Ref b = make("B", {d, e});
    Ref a = make("A", {b, c});
    EXPECT_EQ(names(*a), "A B C D E F object");
}

TEST(ClassModel, LookupAndSuperFollowTheReceiversMro) {
    Ref a = make("A");
    Ref b = make("B", {a});
    Ref c = make("C", {a});
    Ref d = make("D", {b, c});
    a->dict["f"] = eng::vm::Value(1);
    c->dict["f"] = eng::vm::Value(3);
    b->dict["g"] = eng::vm::Value(2);
    EXPECT_EQ(d->lookup("f")->asInt(), 3);  // C comes before A
    // super(B, d).f: after B in D's MRO is C, not B's own base A.
    EXPECT_EQ(d->lookupAfter(*b, "f")->asInt(), 3);
    EXPECT_EQ(b->lookupAfter(*b, "f")->asInt(), 1);
    EXPECT_EQ(d->lookupAfter(*c, "f")->asInt(), 1);
    EXPECT_FALSE(d->lookupAfter(*c, "g"));
    EXPECT_FALSE(c->lookupAfter(*b, "f"));  // B is not in C's MRO
}

TEST(ClassModel, InconsistentOrdersRaiseCPythonsTypeErrors) {
    Ref a = make("A");
    Ref b = make("B", {a});
    EXPECT_EQ(typeErrorOf("C", {a, b}), "TypeError: Cannot create a consistent method resolution order (MRO) for bases A, B");
    EXPECT_EQ(typeErrorOf("C", {a, a}), "TypeError: duplicate base class A");
    Ref x = make("X", {a, make("Y")});
    Ref y2 = make("Y2", {b, a});
    EXPECT_EQ(names(*y2), "Y2 B A object");
    EXPECT_EQ(typeErrorOf("Z", {object(), a}), "TypeError: Cannot create a consistent method resolution order (MRO) for bases object, A");
    EXPECT_EQ(names(*x), "X A Y object");
}

TEST(ClassModel, IncompatibleBuiltinLayoutsConflict) {
    auto builtin = [](const std::string& name) { return std::make_shared<ClassObject>(name, object()); };
    Ref list = builtin("list"), dict = builtin("dict");
    EXPECT_EQ(typeErrorOf("Both", {list, dict}), "TypeError: multiple bases have instance lay-out conflict");
    Ref mine = make("Mine", {list});
    EXPECT_EQ(names(*make("Ok", {mine, list})), "Ok Mine list object");
}

}  // namespace
