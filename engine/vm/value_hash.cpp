// Python's hash() of VM values, CPython's algorithms for numbers and tuples, and the installed InstanceProtocol that
// gives instances of user classes their own __eq__ / __hash__ (value.h).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "vm/errors.h"
#include "vm/value.h"

namespace eng::vm {

namespace {

// CPython's numeric hash (Python/pyhash.c, Objects/longobject.c): reduction modulo the Mersenne prime 2**61 - 1, so
// that equal numbers of any type hash alike.
constexpr int kHashBits = 61;
constexpr uint64_t kHashModulus = (uint64_t{1} << kHashBits) - 1;
constexpr int64_t kHashInfinity = 314159;

/// CPython never returns -1 from a hash (it signals an error in C): -1 becomes -2.
int64_t notMinusOne(int64_t h) { return h == -1 ? -2 : h; }

int64_t intHash(int64_t n) {
    const uint64_t magnitude = n < 0 ? uint64_t{0} - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
    const auto reduced = static_cast<int64_t>(magnitude % kHashModulus);
    return notMinusOne(n < 0 ? -reduced : reduced);
}

/// _Py_HashDouble: an integral float hashes as its int; others by their binary expansion modulo 2**61 - 1.
int64_t floatHash(double v, const void* nanIdentity) {
    if (!std::isfinite(v)) {
        if (std::isinf(v)) return v > 0 ? kHashInfinity : -kHashInfinity;
        return identityHash(static_cast<const Object*>(nanIdentity));
    }
    int e = 0;
    double m = std::frexp(v, &e);
    int sign = 1;
    if (m < 0) {
        sign = -1;
        m = -m;
    }
    uint64_t x = 0;
    while (m != 0.0) {
        x = ((x << 28) & kHashModulus) | x >> (kHashBits - 28);
        m *= 268435456.0;  // 2**28
        e -= 28;
        const auto y = static_cast<uint64_t>(m);
        m -= static_cast<double>(y);
        x += y;
        if (x >= kHashModulus) x -= kHashModulus;
    }
    e = e >= 0 ? e % kHashBits : kHashBits - 1 - ((-1 - e) % kHashBits);
    x = ((x << e) & kHashModulus) | x >> (kHashBits - e);
    const auto h = static_cast<int64_t>(x) * sign;
    return notMinusOne(h);
}

/// tuplehash (Objects/tupleobject.c, xxHash's mixing): CPython's exact value for tuples of ints, floats and bools.
int64_t tupleHash(const ValueList& items) {
    constexpr uint64_t kPrime1 = 11400714785074694791ULL;
    constexpr uint64_t kPrime2 = 14029467366897019727ULL;
    constexpr uint64_t kPrime5 = 2870177450012600261ULL;
    uint64_t acc = kPrime5;
    for (const Value& item : items) {
        const auto lane = static_cast<uint64_t>(hashValue(item));
        acc += lane * kPrime2;
        acc = (acc << 31) | (acc >> 33);
        acc *= kPrime1;
    }
    acc += items.size() ^ (kPrime5 ^ 3527539ULL);
    if (acc == static_cast<uint64_t>(-1)) return 1546275796;
    return static_cast<int64_t>(acc);
}

/// frozenset's hash: independent of the elements' order (CPython's shuffle of each element hash, xor-ed).
int64_t frozensetHash(const ValueList& items) {
    uint64_t h = 0;
    for (const Value& item : items) {
        const auto e = static_cast<uint64_t>(hashValue(item));
        h ^= ((e ^ 89869747ULL) ^ (e << 16)) * 3644798167ULL;
    }
    h ^= (items.size() + 1) * 1927868237ULL;
    h ^= (h >> 11) ^ (h >> 25);
    h = h * 69069U + 907133923ULL;
    return notMinusOne(static_cast<int64_t>(h));
}

/// Strings: FNV-1a. CPython salts str hashes per process (PYTHONHASHSEED), so no program can rely on their values.
int64_t stringHash(const std::string& text) {
    uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return notMinusOne(static_cast<int64_t>(h));
}

[[noreturn]] void unhashable(const char* type) { typeError(fmt::format("unhashable type: '{}'", type)); }

std::vector<InstanceProtocol*>& protocolStack() {
    thread_local std::vector<InstanceProtocol*> stack;
    return stack;
}

}  // namespace

int64_t identityHash(const Object* object) {
    // _Py_HashPointer: the address rotated by 4 bits, its low bits being alignment zeros.
    const auto y = reinterpret_cast<uintptr_t>(object);
    return notMinusOne(static_cast<int64_t>((y >> 4) | (y << (8 * sizeof(uintptr_t) - 4))));
}

int64_t hashValue(const Value& v) {
    switch (v.kind()) {
        case Kind::Null:
        case Kind::None: return 0xFCA86420;  // CPython 3.12's constant hash of None
        case Kind::Bool:
        case Kind::Int: return intHash(v.asInt());
        case Kind::Float: return floatHash(v.asFloat(), nullptr);
        case Kind::Str: return stringHash(v.str());
        // A device equals its string spelling (valuesEqual), so it hashes as that string.
        case Kind::Device: return stringHash(v.as<DeviceObject>().value.str());
        case Kind::DType: return intHash(static_cast<int64_t>(v.as<DTypeObject>().value)) ^ 0x5bd1e995;
        case Kind::Tuple: return tupleHash(v.as<TupleObject>().items);
        case Kind::List: unhashable("list");
        case Kind::Dict: unhashable(v.as<DictObject>().cls ? v.as<DictObject>().cls->name.c_str() : "dict");
        case Kind::Set:
            if (!v.as<SetObject>().frozen) unhashable("set");
            return frozensetHash(v.as<SetObject>().items);
        case Kind::Instance: {
            InstanceProtocol* protocol = currentInstanceProtocol();
            return protocol ? protocol->instanceHash(v) : identityHash(v.object().get());
        }
        default: return identityHash(v.object().get());
    }
}

bool keyMatches(const Value& stored, int64_t storedHash, const Value& key, int64_t keyHash) {
    return stored.identical(key) || (storedHash == keyHash && valuesEqual(stored, key));
}

InstanceProtocolScope::InstanceProtocolScope(InstanceProtocol* protocol) : protocol_(protocol) {
    protocolStack().push_back(protocol);
}

InstanceProtocolScope::~InstanceProtocolScope() {
    auto& stack = protocolStack();
    auto it = std::find(stack.rbegin(), stack.rend(), protocol_);
    if (it != stack.rend()) stack.erase(std::next(it).base());
}

InstanceProtocol* currentInstanceProtocol() {
    const auto& stack = protocolStack();
    return stack.empty() ? nullptr : stack.back();
}

}  // namespace eng::vm
