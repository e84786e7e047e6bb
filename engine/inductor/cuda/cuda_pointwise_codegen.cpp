// The pointwise strategy: a grid-stride loop over the flat outer range. When every access is the flat
// row-major index (or a single element), elements move as 16-byte vectors with a scalar tail; otherwise
// (strided or broadcast accesses) one element per thread and step, or 16 bytes of the innermost dim a thread
// when the stores are flat and rows are whole vectors (a cat: the stores and some loads as vectors).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "inductor/cuda/cuda_codegen_detail.h"

namespace eng::inductor::cuda::detail {

namespace {

constexpr int kDefaultBlock = 256;

struct VectorPlan {
    bool ok = false;
    int width = 1;
    std::set<int> loaded, stored;  // buffers accessed at the flat index
};

std::vector<Store> allStores(const Kernel& kernel) {
    std::vector<Store> stores;
    for (const KernelPass& pass : kernel.passes) stores.insert(stores.end(), pass.stores.begin(), pass.stores.end());
    return stores;
}

// Vectors need every access to be the flat index (or a variable-free single element for loads), and no
// store may feed a later load: the whole vector is loaded before any lane stores.
VectorPlan planVectors(const Kernel& kernel, const std::vector<Store>& stores) {
    VectorPlan plan;
    const Index flat = flatIndex(kernel.outerRanges, 0);
    bool ok = true;
    int widestBytes = 1;
    forEachKernelExpr(kernel, [&](const Expr& e) {
        if (e.kind != Expr::Kind::Load) return;
        if (!mentionsAnyVar(e.index)) return;
        if (!sameIndex(e.index, flat)) ok = false;
        plan.loaded.insert(e.buffer);
        widestBytes = std::max(widestBytes, itemBytes(e.dtype));
    });
    for (size_t i = 0; i < stores.size(); ++i) {
        const Store& s = stores[i];
        if (!sameIndex(s.index, flat)) ok = false;
        if (!plan.stored.insert(s.buffer).second) ok = false;  // two stores to one buffer: keep their order simple
        if (laterStoreReads(stores, i, {})) ok = false;
        widestBytes = std::max(widestBytes, itemBytes(kernel.buffers[static_cast<size_t>(s.buffer)].dtype));
    }
    plan.ok = ok && !stores.empty();
    plan.width = 16 / widestBytes;
    return plan;
}

// The element body: stores in order, dropping cached values after a store a later store reads back.
void emitStores(ExprEmitter& emitter, const std::vector<Store>& stores, const std::function<std::string(const Store&)>& target) {
    for (size_t i = 0; i < stores.size(); ++i) {
        emitter.store(stores[i], target ? target(stores[i]) : std::string());
        if (laterStoreReads(stores, i, {})) emitter.forgetValues();
    }
}

// A branch of the store-vector form: the wheres whose condition the code around has decided, and the side taken.
using WhereChoices = std::map<const Expr*, bool>;

// Loads evaluated at every element of a branch: those not reached only through an undecided where's sides (which
// load only where taken); a decided where is its taken side.
std::set<const Expr*> unconditionalLoads(const std::vector<Store>& stores, const WhereChoices& choices) {
    std::set<const Expr*> loads, seen;
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
        if (!seen.insert(&e).second) return;
        if (e.kind == Expr::Kind::Load) loads.insert(&e);
        if (e.kind == Expr::Kind::Where) {
            if (auto taken = choices.find(&e); taken != choices.end()) return walk(taken->second ? *e.b : *e.c);
            if (e.a) walk(*e.a);
            return;
        }
        for (const ExprPtr& operand : {e.a, e.b, e.c})
            if (operand) walk(*operand);
    };
    for (const Store& s : stores) walk(*s.value);
    return loads;
}

// Store vectors (the stores all at the flat index but some load not, e.g. a cat of slices): a thread takes
// `width` consecutive elements of the contiguous innermost dim, decodes the index once, computes the lanes with
// the innermost variable stepping by one, and stores each buffer's vector at once. Needs a constant innermost size
// that `width` divides, so a vector never crosses into the next row. A where whose condition is the same on every
// lane and whose sides load (a cat's x < 768, rows of whole vectors) is decided once a vector: each branch runs the
// lanes of its side only. Loads that run at every element of a branch and step by one along the innermost dim from
// a multiple of `width` (a bias, a pitched row, a cat's piece) are 16-byte vectors, the others one element a lane.
struct StoreVectorPlan {
    bool ok = false;
    int width = 1;
    int innerVar = 0;
    bool splitWheres = false;  // CudaTuning::whereVectors, and few enough branches
    std::set<int> stored;
};

constexpr int kMaxBranches = 8;  // a cat of 8 pieces; more wheres keep the selects in the lanes

// The next where to decide in the branch `choices`: the first undecided one (depth first from the stores, through
// decided wheres' taken sides) whose condition is the same on every lane and one of whose sides loads.
const Expr* nextUniformWhere(const std::vector<Store>& stores, const WhereChoices& choices, const StoreVectorPlan& plan) {
    std::set<const Expr*> seen;
    auto loads = [](const ExprPtr& side) {
        bool any = false;
        forEachExpr(side, [&](const Expr& e) { any = any || e.kind == Expr::Kind::Load; });
        return any;
    };
    std::function<const Expr*(const Expr&)> walk = [&](const Expr& e) -> const Expr* {
        if (!seen.insert(&e).second) return nullptr;
        if (e.kind == Expr::Kind::Where) {
            if (auto taken = choices.find(&e); taken != choices.end()) return walk(taken->second ? *e.b : *e.c);
            if ((loads(e.b) || loads(e.c)) && uniformAcrossLanes(*e.a, plan.innerVar, plan.width)) return &e;
        }
        for (const ExprPtr& operand : {e.a, e.b, e.c})
            if (operand)
                if (const Expr* found = walk(*operand)) return found;
        return nullptr;
    };
    for (const Store& s : stores)
        if (const Expr* found = walk(*s.value)) return found;
    return nullptr;
}

// The branches deciding every such where take (stops counting past `limit`).
int branchCount(const std::vector<Store>& stores, const WhereChoices& choices, const StoreVectorPlan& plan, int limit) {
    const Expr* w = nextUniformWhere(stores, choices, plan);
    if (!w) return 1;
    WhereChoices taken = choices, other = choices;
    taken[w] = true;
    other[w] = false;
    const int first = branchCount(stores, taken, plan, limit);
    return first > limit ? first : first + branchCount(stores, other, plan, limit - first);
}

StoreVectorPlan planStoreVectors(const Kernel& kernel, const std::vector<Store>& stores, const CudaTuning& tuning) {
    StoreVectorPlan plan;
    if (!tuning.allowVectorized || !tuning.storeVectors || !tuning.assumeAligned || stores.empty() || kernel.outerRanges.empty()) return plan;
    const Index flat = flatIndex(kernel.outerRanges, 0);
    int widest = 1;
    for (size_t i = 0; i < stores.size(); ++i) {
        const Store& st = stores[i];
        if (!sameIndex(st.index, flat) || !plan.stored.insert(st.buffer).second || laterStoreReads(stores, i, {})) return plan;
        widest = std::max(widest, itemBytes(kernel.buffers[static_cast<size_t>(st.buffer)].dtype));
    }
    const int width = 16 / widest;
    const std::optional<int64_t> inner = constantValue(kernel.outerRanges.back());
    if (width < 2 || !inner || *inner < width || *inner % width != 0) return plan;
    plan.width = width;
    plan.innerVar = static_cast<int>(kernel.outerRanges.size()) - 1;
    plan.splitWheres = tuning.whereVectors && branchCount(stores, {}, plan, kMaxBranches) <= kMaxBranches;
    plan.ok = true;
    return plan;
}

struct StoreVectorEmitter {
    const Kernel& kernel;
    const StoreVectorPlan& plan;
    const std::vector<Store>& stores;
    const std::string& idx;
    int& counter;

    std::string vecType(int b) const { return fmt::format("cwb_vec<{}, {}>", storageType(kernel.buffers[static_cast<size_t>(b)].dtype), plan.width); }

    // One branch: its where conditions decided as `choices` says, its vector loads, then the lanes.
    std::string branch(const WhereChoices& choices, const std::string& in) const {
        if (const Expr* w = plan.splitWheres ? nextUniformWhere(stores, choices, plan) : nullptr) {
            ExprEmitter condition(kernel, idx, in, counter);
            const std::string test = condition.value(w->a);
            WhereChoices taken = choices, other = choices;
            taken[w] = true;
            other[w] = false;
            return condition.code() + fmt::format("{}if ({}) {{  // the same on every lane of the vector\n", in, test) + branch(taken, in + "  ") + in +
                   "} else {\n" + branch(other, in + "  ") + in + "}\n";
        }
        std::string body;
        ExprEmitter outer(kernel, idx, in, counter);
        const std::set<const Expr*> everywhere = unconditionalLoads(stores, choices);
        std::vector<std::pair<const Expr*, std::string>> names;
        forEachKernelExpr(kernel, [&](const Expr& e) {
            if (e.kind != Expr::Kind::Load || !everywhere.count(&e) || plan.stored.count(e.buffer) || itemBytes(e.dtype) * plan.width != 16) return;
            const std::optional<LaneForm> form = laneForm(e.index, plan.innerVar, plan.width);
            if (!form || form->step != 1 || !form->aligned) return;
            const std::string name = fmt::format("{}_v{}", bufferName(kernel, e.buffer), names.size());
            body += fmt::format("{0}const {1} {2} = *reinterpret_cast<const {1}*>({3} + {4});\n", in, vecType(e.buffer), name, bufferName(kernel, e.buffer),
                                outer.index(e.index));
            names.emplace_back(&e, name);
        });
        body += fmt::format("#pragma unroll\n{}for (int k = 0; k < {}; ++k) {{\n", in, plan.width);
        body += fmt::format("{}  const {} {} = cwb_lane0 + k;\n", in, idx, kernel.varName(plan.innerVar));
        ExprEmitter emitter(kernel, idx, in + "  ", counter);
        emitter.loadOverride = [&](const Expr& e) -> std::optional<std::string> {
            for (const auto& [load, name] : names)
                if (load == &e) return fmt::format("cwb_load({}.v[k])", name);
            return std::nullopt;
        };
        emitter.whereTaken = [&](const Expr& e) -> std::optional<bool> {
            if (auto taken = choices.find(&e); taken != choices.end()) return taken->second;
            return std::nullopt;
        };
        emitStores(emitter, stores, [&](const Store& st) { return bufferName(kernel, st.buffer) + "_out.v[k]"; });
        return body + emitter.code() + in + "}\n";
    }
};

// The grid-stride loop of the store-vector form (planStoreVectors).
std::string storeVectorLoop(const Kernel& kernel, const StoreVectorPlan& plan, const std::vector<Store>& stores, const std::string& idx, int block,
                            int& counter) {
    const int width = plan.width;
    const std::string innerVar = kernel.varName(plan.innerVar);
    std::string body = fmt::format("  // Each thread takes {0} consecutive elements of the innermost dim (its size is a multiple of {0}): the index\n"
                                   "  // decoded once, the lanes {1}, {1} + 1, ..., the stores as one 16-byte vector a buffer.\n",
                                   width, innerVar);
    body += fmt::format("  const {} vectors = numel / {};\n", idx, width);
    body += fmt::format("  for ({0} vec = ({0})blockIdx.x * {1} + threadIdx.x; vec < vectors; vec += ({0})gridDim.x * {1}) {{\n", idx, block);
    body += fmt::format("    const {} base = vec * {};\n", idx, width);
    ExprEmitter outer(kernel, idx, "    ", counter);
    body += decodeVars(kernel, kernel.outerRanges, 0, "base", idx, "    ", outer);
    body += fmt::format("    const {} cwb_lane0 = {};\n", idx, innerVar);
    const StoreVectorEmitter emitter{kernel, plan, stores, idx, counter};
    for (int b : plan.stored) body += fmt::format("    {} {}_out;\n", emitter.vecType(b), bufferName(kernel, b));
    body += emitter.branch({}, "    ");
    for (int b : plan.stored) {
        const std::string name = bufferName(kernel, b);
        body += fmt::format("    *reinterpret_cast<{}*>({} + base) = {}_out;\n", emitter.vecType(b), name, name);
    }
    return body + "  }\n";
}

}  // namespace

std::string pointwiseBody(const Kernel& kernel, const CudaTuning& tuning, CudaKernelCode& code, std::optional<bool> index64) {
    code.index64 = index64.value_or(needsIndex64(kernel));
    const std::string idx = code.index64 ? "long long" : "int";
    const int block = tuning.blockSize > 0 ? tuning.blockSize : kDefaultBlock;
    const std::vector<Store> stores = allStores(kernel);
    const VectorPlan plan = tuning.allowVectorized ? planVectors(kernel, stores) : VectorPlan{};
    const int width = plan.ok ? plan.width : 1;
    const int unroll = plan.ok ? std::max(1, tuning.elementsPerThread / width) : 1;
    code.strategy = plan.ok ? CudaStrategy::PointwiseVectorized : CudaStrategy::PointwiseScalar;
    code.vectorWidth = width;
    code.blockX = static_cast<unsigned>(block);
    code.itemsPerBlock = static_cast<int64_t>(block) * width * unroll;
    if (!plan.ok) {
        const StoreVectorPlan stored = planStoreVectors(kernel, stores, tuning);
        if (stored.ok) {
            code.vectorWidth = stored.width;
            code.assumesAligned = true;
            code.itemsPerBlock = static_cast<int64_t>(block) * stored.width;
            int counter = 0;
            ExprEmitter sizes(kernel, idx, "  ", counter);
            return fmt::format("  // strategy: {} (stores as vectors of {} elements), {}-bit indexing\n", strategyName(code.strategy), stored.width,
                               code.index64 ? 64 : 32) +
                   fmt::format("  const {} numel = {};\n", idx, sizes.index(product(kernel.outerRanges))) +
                   storeVectorLoop(kernel, stored, stores, idx, block, counter);
        }
    }

    int counter = 0;
    std::string body;
    ExprEmitter sizes(kernel, idx, "  ", counter);
    body += fmt::format("  const {} numel = {};\n", idx, sizes.index(product(kernel.outerRanges)));
    std::string scalarStart = "0";
    if (plan.ok) {
        code.assumesAligned = tuning.assumeAligned;
        if (tuning.assumeAligned) {
            body += "  // Buffers start on 16-byte boundaries (the launcher checks): every whole vector is aligned.\n";
            body += fmt::format("  const {} vectors = numel / {};\n", idx, width);
        } else {
            auto misalignment = [&](int b) {
                const int bytes = width * itemBytes(kernel.buffers[static_cast<size_t>(b)].dtype);
                return fmt::format("(reinterpret_cast<unsigned long long>({}) & {})", bufferName(kernel, b), bytes - 1);
            };
            std::string all;
            for (int b : plan.loaded) all += (all.empty() ? "" : " | ") + misalignment(b);
            for (int b : plan.stored)
                if (!plan.loaded.count(b)) all += (all.empty() ? "" : " | ") + misalignment(b);
            body += "  // Vector accesses need buffers aligned to the vector size; offset views take the scalar loop.\n";
            body += fmt::format("  const bool aligned = ({}) == 0;\n", all);
            body += fmt::format("  const {} vectors = aligned ? numel / {} : 0;\n", idx, width);
        }
        body += fmt::format("  // Each step a block covers {} consecutive vectors of {} elements.\n", block * unroll, width);
        body += fmt::format("  for ({0} chunk = ({0})blockIdx.x * {1}; chunk < vectors; chunk += ({0})gridDim.x * {1}) {{\n", idx, block * unroll);
        std::string inner = "    ";
        if (unroll > 1) {
            body += fmt::format("#pragma unroll\n    for (int u = 0; u < {}; ++u) {{\n", unroll);
            body += fmt::format("      const {} vec = chunk + u * {} + threadIdx.x;\n", idx, block);
            inner = "      ";
        } else {
            body += fmt::format("    const {} vec = chunk + threadIdx.x;\n", idx);
        }
        body += inner + "if (vec < vectors) {\n";
        const std::string in = inner + "  ";
        body += fmt::format("{}const {} base = vec * {};\n", in, idx, width);
        auto vecType = [&](int b) { return fmt::format("cwb_vec<{}, {}>", storageType(kernel.buffers[static_cast<size_t>(b)].dtype), width); };
        for (int b : plan.loaded) {
            const std::string name = bufferName(kernel, b);
            body += fmt::format("{0}const {1} {2}_v = *reinterpret_cast<const {1}*>({2} + base);\n", in, vecType(b), name);
        }
        for (int b : plan.stored) body += fmt::format("{}{} {}_out;\n", in, vecType(b), bufferName(kernel, b));
        body += fmt::format("#pragma unroll\n{}for (int k = 0; k < {}; ++k) {{\n", in, width);
        const std::string lane = in + "  ";
        body += fmt::format("{}const {} flat = base + k;\n", lane, idx);
        ExprEmitter emitter(kernel, idx, lane, counter);
        emitter.loadOverride = [&](const Expr& e) -> std::optional<std::string> {
            if (!mentionsAnyVar(e.index)) return std::nullopt;
            return fmt::format("cwb_load({}_v.v[k])", bufferName(kernel, e.buffer));
        };
        body += decodeVars(kernel, kernel.outerRanges, 0, "flat", idx, lane, emitter);
        emitStores(emitter, stores, [&](const Store& s) { return bufferName(kernel, s.buffer) + "_out.v[k]"; });
        body += emitter.code();
        body += in + "}\n";
        for (int b : plan.stored) {
            const std::string name = bufferName(kernel, b);
            body += fmt::format("{}*reinterpret_cast<{}*>({} + base) = {}_out;\n", in, vecType(b), name, name);
        }
        body += inner + "}\n";
        if (unroll > 1) body += "    }\n";
        body += "  }\n";
        scalarStart = fmt::format("vectors * {}", width);
    }
    const std::optional<int64_t> numel = constantValue(product(kernel.outerRanges));
    const bool noTail = plan.ok && tuning.assumeAligned && numel && *numel % width == 0;
    if (plan.ok && !noTail)
        body += tuning.assumeAligned ? "  // The scalar tail (numel % vector width).\n" : "  // The scalar tail (numel % vector width), or everything when unaligned.\n";
    if (!noTail) {
        body += fmt::format("  for ({0} flat = {1} + ({0})blockIdx.x * {2} + threadIdx.x; flat < numel; flat += ({0})gridDim.x * {2}) {{\n", idx,
                            scalarStart, block);
        ExprEmitter emitter(kernel, idx, "    ", counter);
        body += decodeVars(kernel, kernel.outerRanges, 0, "flat", idx, "    ", emitter);
        emitStores(emitter, stores, nullptr);
        body += emitter.code();
        body += "  }\n";
    }

    return fmt::format("  // strategy: {}{}, {}-bit indexing\n", strategyName(code.strategy),
                       plan.ok ? fmt::format(" (vectors of {} elements)", width) : "", code.index64 ? 64 : 32) + body;
}

CudaKernelCode generatePointwise(const Kernel& kernel, const CudaTuning& tuning) {
    CudaKernelCode code;
    const std::string body = pointwiseBody(kernel, tuning, code);
    code.source = prelude() + "\n" + irComment(kernel) + signature(kernel, static_cast<int>(code.blockX)) + " {\n" + body + "}\n";
    return code;
}

}  // namespace eng::inductor::cuda::detail
