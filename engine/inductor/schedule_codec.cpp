// The schedule codec (see schedule_codec.h): integers in decimal, strings length-prefixed, doubles by their bits, and
// index/expression DAGs with each node defined once ("D" ...) and referred to by number afterwards ("R n").
#include "inductor/schedule_codec.h"

#include <bit>
#include <charconv>
#include <stdexcept>
#include <unordered_map>

namespace eng::inductor {

namespace {

constexpr std::string_view kFormat = "cwb-schedule 1";

struct Malformed : std::runtime_error {
    Malformed() : std::runtime_error("malformed schedule") {}
};

class Writer {
public:
    void integer(int64_t value) { text_ += std::to_string(value) + ' '; }
    void flag(bool value) { integer(value ? 1 : 0); }
    void real(double value) { text_ += std::to_string(std::bit_cast<uint64_t>(value)) + ' '; }
    void string(const std::string& value) { text_ += std::to_string(value.size()) + ':' + value + ' '; }
    void word(std::string_view value) { text_ += std::string(value) + ' '; }

    void index(const Index& node) {
        if (!node) return word("N");
        if (auto it = indexIds_.find(node.get()); it != indexIds_.end()) {
            word("R");
            return integer(it->second);
        }
        word("D");
        integer(static_cast<int64_t>(node->op));
        integer(node->value);
        string(node->symbol);
        index(node->lhs);
        index(node->rhs);
        indexIds_.emplace(node.get(), static_cast<int64_t>(indexIds_.size()));
    }

    void expr(const ExprPtr& node) {
        if (!node) return word("N");
        if (auto it = exprIds_.find(node.get()); it != exprIds_.end()) {
            word("R");
            return integer(it->second);
        }
        word("D");
        integer(static_cast<int64_t>(node->kind));
        integer(static_cast<int64_t>(node->dtype));
        integer(node->buffer);
        index(node->index);
        real(node->number);
        integer(node->integer);
        integer(static_cast<int64_t>(node->op));
        expr(node->a);
        expr(node->b);
        expr(node->c);
        integer(node->reduction);
        exprIds_.emplace(node.get(), static_cast<int64_t>(exprIds_.size()));
    }

    void indices(const std::vector<Index>& list) {
        integer(static_cast<int64_t>(list.size()));
        for (const Index& i : list) index(i);
    }
    void strings(const std::vector<std::string>& list) {
        integer(static_cast<int64_t>(list.size()));
        for (const std::string& s : list) string(s);
    }
    void integers(const std::vector<int>& list) {
        integer(static_cast<int64_t>(list.size()));
        for (int i : list) integer(i);
    }
    void stores(const std::vector<Store>& list) {
        integer(static_cast<int64_t>(list.size()));
        for (const Store& s : list) {
            integer(s.buffer);
            index(s.index);
            expr(s.value);
        }
    }

    void kernel(const Kernel& k) {
        string(k.name);
        integer(static_cast<int64_t>(k.buffers.size()));
        for (const KernelBuffer& b : k.buffers) {
            string(b.name);
            integer(static_cast<int64_t>(b.dtype));
            flag(b.read);
            flag(b.written);
        }
        strings(k.symbols);
        indices(k.outerRanges);
        indices(k.reductionRanges);
        integer(static_cast<int64_t>(k.passes.size()));
        for (const KernelPass& pass : k.passes) {
            flag(pass.overReductionRange);
            integer(static_cast<int64_t>(pass.reductions.size()));
            for (const Reduction& r : pass.reductions) {
                integer(r.id);
                integer(static_cast<int64_t>(r.op));
                expr(r.value);
                flag(r.overOuterRange);
            }
            stores(pass.stores);
        }
        integer(static_cast<int64_t>(k.parts.size()));
        for (const ComboPart& part : k.parts) {
            kernel(part.kernel);
            integers(part.buffers);
        }
        stores(k.finalStores);
    }

    std::string take() { return std::move(text_); }

private:
    std::string text_;
    std::unordered_map<const IndexNode*, int64_t> indexIds_;
    std::unordered_map<const Expr*, int64_t> exprIds_;
};

class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    std::string_view word() {
        const size_t end = text_.find(' ', pos_);
        if (end == std::string_view::npos) throw Malformed();
        std::string_view token = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return token;
    }
    int64_t integer() {
        std::string_view token = word();
        int64_t value = 0;
        auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error != std::errc() || end != token.data() + token.size()) throw Malformed();
        return value;
    }
    /// An integer in [0, limit): counts, enum values and references.
    size_t bounded(int64_t limit) {
        const int64_t value = integer();
        if (value < 0 || value >= limit) throw Malformed();
        return static_cast<size_t>(value);
    }
    // Every element takes at least one character, so a corrupt count cannot ask for more than the text holds.
    size_t count() { return bounded(static_cast<int64_t>(text_.size()) + 1); }
    bool flag() { return bounded(2) == 1; }
    double real() {
        std::string_view token = word();
        uint64_t bits = 0;
        auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), bits);
        if (error != std::errc() || end != token.data() + token.size()) throw Malformed();
        return std::bit_cast<double>(bits);
    }
    std::string string() {
        const size_t colon = text_.find(':', pos_);
        if (colon == std::string_view::npos) throw Malformed();
        size_t length = 0;
        auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + colon, length);
        if (error != std::errc() || end != text_.data() + colon || colon + 1 + length >= text_.size() || text_[colon + 1 + length] != ' ')
            throw Malformed();
        std::string value(text_.substr(colon + 1, length));
        pos_ = colon + 2 + length;
        return value;
    }

    Index index() {
        std::string_view tag = word();
        if (tag == "N") return nullptr;
        if (tag == "R") return indexNodes_.at(bounded(static_cast<int64_t>(indexNodes_.size())));
        if (tag != "D") throw Malformed();
        auto node = std::make_shared<IndexNode>();
        node->op = static_cast<IndexNode::Op>(bounded(static_cast<int64_t>(IndexNode::Op::Mod) + 1));
        node->value = integer();
        node->symbol = string();
        node->lhs = index();
        node->rhs = index();
        indexNodes_.push_back(node);
        return node;
    }

    ExprPtr expr() {
        std::string_view tag = word();
        if (tag == "N") return nullptr;
        if (tag == "R") return exprNodes_.at(bounded(static_cast<int64_t>(exprNodes_.size())));
        if (tag != "D") throw Malformed();
        auto node = std::make_shared<Expr>();
        node->kind = static_cast<Expr::Kind>(bounded(static_cast<int64_t>(Expr::Kind::ReductionValue) + 1));
        node->dtype = static_cast<DType>(integer());
        node->buffer = static_cast<int>(integer());
        node->index = index();
        node->number = real();
        node->integer = integer();
        node->op = static_cast<ElementOp>(integer());
        node->a = expr();
        node->b = expr();
        node->c = expr();
        node->reduction = static_cast<int>(integer());
        exprNodes_.push_back(node);
        return node;
    }

    std::vector<Index> indices() {
        std::vector<Index> list(count());
        for (Index& i : list) i = index();
        return list;
    }
    std::vector<std::string> strings() {
        std::vector<std::string> list(count());
        for (std::string& s : list) s = string();
        return list;
    }
    std::vector<int> integers() {
        std::vector<int> list(count());
        for (int& i : list) i = static_cast<int>(integer());
        return list;
    }
    std::vector<Store> stores() {
        std::vector<Store> list(count());
        for (Store& s : list) {
            s.buffer = static_cast<int>(integer());
            s.index = index();
            s.value = expr();
        }
        return list;
    }

    Kernel kernel() {
        Kernel k;
        k.name = string();
        k.buffers.resize(count());
        for (KernelBuffer& b : k.buffers) {
            b.name = string();
            b.dtype = static_cast<DType>(integer());
            b.read = flag();
            b.written = flag();
        }
        k.symbols = strings();
        k.outerRanges = indices();
        k.reductionRanges = indices();
        k.passes.resize(count());
        for (KernelPass& pass : k.passes) {
            pass.overReductionRange = flag();
            pass.reductions.resize(count());
            for (Reduction& r : pass.reductions) {
                r.id = static_cast<int>(integer());
                r.op = static_cast<ReductionOp>(integer());
                r.value = expr();
                r.overOuterRange = flag();
            }
            pass.stores = stores();
        }
        k.parts.resize(count());
        for (ComboPart& part : k.parts) {
            part.kernel = kernel();
            part.buffers = integers();
        }
        k.finalStores = stores();
        return k;
    }

    bool atEnd() const { return pos_ == text_.size(); }

private:
    std::string_view text_;
    size_t pos_ = 0;
    std::vector<Index> indexNodes_;
    std::vector<ExprPtr> exprNodes_;
};

}  // namespace

std::string encodeSchedule(const Schedule& schedule) {
    Writer w;
    w.string(std::string(kFormat));
    w.integer(static_cast<int64_t>(schedule.kernels.size()));
    for (const ScheduledKernel& k : schedule.kernels) {
        w.kernel(k.kernel);
        w.integers(k.bufferIds);
        w.integers(k.members);
        w.strings(k.sourceNodes);
        w.index(k.outerNumel);
    }
    w.integer(static_cast<int64_t>(schedule.steps.size()));
    for (const ScheduleStep& step : schedule.steps) {
        w.flag(step.kind == ScheduleStep::Kind::Extern);
        w.integer(step.index);
    }
    w.integer(static_cast<int64_t>(schedule.stored.size()));
    for (bool stored : schedule.stored) w.flag(stored);
    w.integer(static_cast<int64_t>(schedule.decisions.size()));
    for (const FusionDecision& d : schedule.decisions) {
        w.string(d.buffer);
        w.string(d.kernel);
        w.flag(d.fused);
        w.string(d.reason);
    }
    return w.take();
}

std::optional<Schedule> decodeSchedule(const std::string& text) {
    try {
        Reader r(text);
        if (r.string() != kFormat) return std::nullopt;
        Schedule schedule;
        schedule.kernels.resize(r.count());
        for (ScheduledKernel& k : schedule.kernels) {
            k.kernel = r.kernel();
            k.bufferIds = r.integers();
            k.members = r.integers();
            k.sourceNodes = r.strings();
            k.outerNumel = r.index();
        }
        schedule.steps.resize(r.count());
        for (ScheduleStep& step : schedule.steps) {
            step.kind = r.flag() ? ScheduleStep::Kind::Extern : ScheduleStep::Kind::Kernel;
            step.index = static_cast<int>(r.integer());
        }
        schedule.stored.resize(r.count());
        for (size_t i = 0; i < schedule.stored.size(); ++i) schedule.stored[i] = r.flag();
        schedule.decisions.resize(r.count());
        for (FusionDecision& d : schedule.decisions) {
            d.buffer = r.string();
            d.kernel = r.string();
            d.fused = r.flag();
            d.reason = r.string();
        }
        if (!r.atEnd()) return std::nullopt;
        return schedule;
    } catch (const Malformed&) {
        return std::nullopt;
    } catch (const std::out_of_range&) {
        return std::nullopt;
    }
}

}  // namespace eng::inductor
