// Classes: their method resolution order (CPython's C3 linearisation, with its TypeErrors), and the lookups that
// follow it (attributes, super(), subclass tests).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "vm/errors.h"
#include "vm/value.h"

namespace eng::vm {

namespace {

using ClassRef = std::shared_ptr<ClassObject>;

/// The builtin class whose instance layout `cls` extends (CPython's solid base), nullptr for plain `object` layout:
/// two bases of different such layouts cannot share one instance ("multiple bases have instance lay-out conflict").
const ClassObject* solidBuiltin(const ClassObject& cls) {
    static const std::set<std::string> layouts = {"int", "float", "complex", "str", "bytes", "bytearray", "tuple",
                                                  "list", "dict", "set", "frozenset", "BaseException"};
    for (const ClassObject* c : cls.mro())
        if (c->module == "builtins" && layouts.contains(c->name)) return c;
    return nullptr;
}

void checkLayouts(const std::vector<ClassRef>& bases) {
    const ClassObject* solid = nullptr;
    for (const ClassRef& base : bases) {
        const ClassObject* candidate = solidBuiltin(*base);
        if (!candidate || candidate == solid) continue;
        if (solid && !candidate->isSubclassOf(*solid) && !solid->isSubclassOf(*candidate))
            typeError("multiple bases have instance lay-out conflict");
        if (!solid || candidate->isSubclassOf(*solid)) solid = candidate;
    }
}

/// C3: merge the bases' MROs and the list of bases, each step taking the first head that is in no list's tail.
std::vector<ClassRef> linearise(const std::vector<ClassRef>& bases) {
    for (size_t i = 0; i < bases.size(); ++i)
        for (size_t j = i + 1; j < bases.size(); ++j)
            if (bases[i] == bases[j]) typeError(fmt::format("duplicate base class {}", bases[i]->name));
    std::vector<std::vector<ClassRef>> toMerge;
    for (const ClassRef& base : bases) {
        std::vector<ClassRef> mro{base};
        mro.insert(mro.end(), base->ancestors.begin(), base->ancestors.end());
        toMerge.push_back(std::move(mro));
    }
    toMerge.push_back(bases);
    std::vector<size_t> next(toMerge.size(), 0);  // the head of each list
    auto inSomeTail = [&](const ClassRef& candidate) {
        for (size_t i = 0; i < toMerge.size(); ++i)
            if (std::find(toMerge[i].begin() + static_cast<long>(std::min(next[i] + 1, toMerge[i].size())), toMerge[i].end(), candidate) !=
                toMerge[i].end())
                return true;
        return false;
    };
    std::vector<ClassRef> result;
    for (;;) {
        bool empty = true;
        ClassRef chosen;
        for (size_t i = 0; i < toMerge.size() && !chosen; ++i) {
            if (next[i] >= toMerge[i].size()) continue;
            empty = false;
            if (!inSomeTail(toMerge[i][next[i]])) chosen = toMerge[i][next[i]];
        }
        if (empty) return result;
        if (!chosen) {
            // CPython names the heads still to merge, each once, in the order of the lists.
            std::vector<std::string> heads;
            std::vector<const ClassObject*> seen;
            for (size_t i = 0; i < toMerge.size(); ++i) {
                if (next[i] >= toMerge[i].size()) continue;
                const ClassObject* head = toMerge[i][next[i]].get();
                if (std::find(seen.begin(), seen.end(), head) != seen.end()) continue;
                seen.push_back(head);
                heads.push_back(head->name);
            }
            typeError(fmt::format("Cannot create a consistent method resolution order (MRO) for bases {}", fmt::join(heads, ", ")));
        }
        result.push_back(chosen);
        for (size_t i = 0; i < toMerge.size(); ++i)
            if (next[i] < toMerge[i].size() && toMerge[i][next[i]] == chosen) ++next[i];
    }
}

}  // namespace

ClassObject::ClassObject(std::string n, ClassRef base) : Object(Kind::Class), name(std::move(n)) {
    if (!base) return;
    ancestors.push_back(base);
    ancestors.insert(ancestors.end(), base->ancestors.begin(), base->ancestors.end());
    bases.push_back(std::move(base));
}

ClassObject::ClassObject(std::string n, std::vector<ClassRef> basesWritten) : Object(Kind::Class), name(std::move(n)) {
    if (basesWritten.size() == 1) {
        ancestors.push_back(basesWritten[0]);
        ancestors.insert(ancestors.end(), basesWritten[0]->ancestors.begin(), basesWritten[0]->ancestors.end());
    } else if (!basesWritten.empty()) {
        checkLayouts(basesWritten);
        ancestors = linearise(basesWritten);
    }
    bases = std::move(basesWritten);
}

std::vector<const ClassObject*> ClassObject::mro() const {
    std::vector<const ClassObject*> order{this};
    for (const ClassRef& c : ancestors) order.push_back(c.get());
    return order;
}

std::optional<Value> ClassObject::lookup(const std::string& attribute) const {
    if (auto it = dict.find(attribute); it != dict.end()) return it->second;
    for (const ClassRef& c : ancestors)
        if (auto it = c->dict.find(attribute); it != c->dict.end()) return it->second;
    return std::nullopt;
}

std::optional<Value> ClassObject::lookupAfter(const ClassObject& start, const std::string& attribute) const {
    auto it = ancestors.begin();
    if (&start != this) {
        it = std::find_if(ancestors.begin(), ancestors.end(), [&](const ClassRef& c) { return c.get() == &start; });
        if (it == ancestors.end()) return std::nullopt;
        ++it;
    }
    for (; it != ancestors.end(); ++it)
        if (auto found = (*it)->dict.find(attribute); found != (*it)->dict.end()) return found->second;
    return std::nullopt;
}

bool ClassObject::isSubclassOf(const ClassObject& other) const {
    return this == &other || std::any_of(ancestors.begin(), ancestors.end(), [&](const ClassRef& c) { return c.get() == &other; });
}

}  // namespace eng::vm
