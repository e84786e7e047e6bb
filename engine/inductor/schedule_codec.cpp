// The schedule codec (see schedule_codec.h): integers in decimal, strings length-prefixed, doubles by their bits, and
// index/expression DAGs with each node defined once ("D" ...) and referred to by number afterwards ("R n"). Each
// struct's fields are listed once, in a visit(archive, value) that the Writer and the Reader both run, so the two
// directions cannot drift apart.
#include "inductor/schedule_codec.h"

#include <bit>
#include <charconv>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace eng::inductor {

namespace {

// Bump when a visit below changes what it writes: a cache entry of another version reads as a miss.
constexpr std::string_view kFormat = "cwb-schedule 1";

struct Malformed : std::runtime_error {
    Malformed() : std::runtime_error("malformed schedule") {}
};

/// The largest value of each enum the codec bounds on reading (the Reader refuses anything above it).
template <typename E>
constexpr E kLastEnumValue = E{};
template <>
constexpr IndexNode::Op kLastEnumValue<IndexNode::Op> = IndexNode::Op::Mod;
template <>
constexpr Expr::Kind kLastEnumValue<Expr::Kind> = Expr::Kind::ReductionValue;
template <>
constexpr ScheduleStep::Kind kLastEnumValue<ScheduleStep::Kind> = ScheduleStep::Kind::Extern;
template <typename E>
constexpr bool kBoundedEnum = kLastEnumValue<E> != E{};

// The field lists. `A` is the Writer or the Reader; `T` is the struct, const when writing.

template <typename A, typename T>
void visitIndexNode(A& a, T& node) {
    a.enumeration(node.op);
    a.integer(node.value);
    a.string(node.symbol);
    a.index(node.lhs);
    a.index(node.rhs);
}

template <typename A, typename T>
void visitExpr(A& a, T& node) {
    a.enumeration(node.kind);
    a.enumeration(node.dtype);
    a.integer(node.buffer);
    a.index(node.index);
    a.real(node.number);
    a.integer(node.integer);
    a.enumeration(node.op);
    a.expr(node.a);
    a.expr(node.b);
    a.expr(node.c);
    a.integer(node.reduction);
}

template <typename A, typename T>
void visitStore(A& a, T& store) {
    a.integer(store.buffer);
    a.index(store.index);
    a.expr(store.value);
}

template <typename A, typename T>
void visitKernel(A& a, T& k) {
    a.string(k.name);
    a.list(k.buffers, [&](auto& b) {
        a.string(b.name);
        a.enumeration(b.dtype);
        a.flag(b.read);
        a.flag(b.written);
    });
    a.list(k.symbols, [&](auto& s) { a.string(s); });
    a.list(k.outerRanges, [&](auto& i) { a.index(i); });
    a.list(k.reductionRanges, [&](auto& i) { a.index(i); });
    a.list(k.passes, [&](auto& pass) {
        a.flag(pass.overReductionRange);
        a.list(pass.reductions, [&](auto& r) {
            a.integer(r.id);
            a.enumeration(r.op);
            a.expr(r.value);
            a.flag(r.overOuterRange);
        });
        a.list(pass.stores, [&](auto& s) { visitStore(a, s); });
    });
    a.list(k.parts, [&](auto& part) {
        visitKernel(a, part.kernel);
        a.list(part.buffers, [&](auto& b) { a.integer(b); });
    });
    a.list(k.finalStores, [&](auto& s) { visitStore(a, s); });
}

template <typename A, typename T>
void visitSchedule(A& a, T& schedule) {
    a.list(schedule.kernels, [&](auto& k) {
        visitKernel(a, k.kernel);
        a.list(k.bufferIds, [&](auto& id) { a.integer(id); });
        a.list(k.members, [&](auto& id) { a.integer(id); });
        a.list(k.sourceNodes, [&](auto& s) { a.string(s); });
        a.index(k.outerNumel);
    });
    a.list(schedule.steps, [&](auto& step) {
        a.enumeration(step.kind);
        a.integer(step.index);
    });
    a.flags(schedule.stored);
    a.list(schedule.decisions, [&](auto& d) {
        a.string(d.buffer);
        a.string(d.kernel);
        a.flag(d.fused);
        a.string(d.reason);
    });
}

class Writer {
public:
    template <typename I>
        requires std::is_integral_v<I>
    void integer(I value) {
        text_ += std::to_string(static_cast<int64_t>(value)) + ' ';
    }
    template <typename E>
        requires std::is_enum_v<E>
    void enumeration(E value) {
        integer(static_cast<int64_t>(value));
    }
    void flag(bool value) { integer(value ? 1 : 0); }
    void real(double value) { text_ += std::to_string(std::bit_cast<uint64_t>(value)) + ' '; }
    void string(const std::string& value) { text_ += std::to_string(value.size()) + ':' + value + ' '; }
    template <typename T, typename F>
    void list(const std::vector<T>& items, F&& each) {
        integer(items.size());
        for (const T& item : items) each(item);
    }
    void flags(const std::vector<bool>& items) {
        integer(items.size());
        for (bool item : items) flag(item);
    }

    void index(const Index& node) {
        if (!node) return word("N");
        if (auto it = indexIds_.find(node.get()); it != indexIds_.end()) {
            word("R");
            return integer(it->second);
        }
        word("D");
        visitIndexNode(*this, *node);
        indexIds_.emplace(node.get(), static_cast<int64_t>(indexIds_.size()));
    }
    void expr(const ExprPtr& node) {
        if (!node) return word("N");
        if (auto it = exprIds_.find(node.get()); it != exprIds_.end()) {
            word("R");
            return integer(it->second);
        }
        word("D");
        visitExpr(*this, *node);
        exprIds_.emplace(node.get(), static_cast<int64_t>(exprIds_.size()));
    }

    std::string take() { return std::move(text_); }

private:
    void word(std::string_view value) { text_ += std::string(value) + ' '; }

    std::string text_;
    std::unordered_map<const IndexNode*, int64_t> indexIds_;
    std::unordered_map<const Expr*, int64_t> exprIds_;
};

class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    template <typename I>
        requires std::is_integral_v<I>
    void integer(I& value) {
        value = static_cast<I>(readInteger());
    }
    template <typename E>
        requires std::is_enum_v<E>
    void enumeration(E& value) {
        if constexpr (kBoundedEnum<E>)
            value = static_cast<E>(bounded(static_cast<int64_t>(kLastEnumValue<E>) + 1));
        else
            value = static_cast<E>(readInteger());
    }
    void flag(bool& value) { value = bounded(2) == 1; }
    void real(double& value) {
        std::string_view token = word();
        uint64_t bits = 0;
        auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), bits);
        if (error != std::errc() || end != token.data() + token.size()) throw Malformed();
        value = std::bit_cast<double>(bits);
    }
    void string(std::string& value) {
        const size_t colon = text_.find(':', pos_);
        if (colon == std::string_view::npos) throw Malformed();
        size_t length = 0;
        auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + colon, length);
        if (error != std::errc() || end != text_.data() + colon || colon + 1 + length >= text_.size() || text_[colon + 1 + length] != ' ')
            throw Malformed();
        value = std::string(text_.substr(colon + 1, length));
        pos_ = colon + 2 + length;
    }
    template <typename T, typename F>
    void list(std::vector<T>& items, F&& each) {
        items.resize(count());
        for (T& item : items) each(item);
    }
    void flags(std::vector<bool>& items) {
        items.resize(count());
        for (size_t i = 0; i < items.size(); ++i) {
            bool value = false;
            flag(value);
            items[i] = value;
        }
    }

    void index(Index& node) {
        std::string_view tag = word();
        if (tag == "N") return node.reset();
        if (tag == "R") {
            node = indexNodes_.at(bounded(static_cast<int64_t>(indexNodes_.size())));
            return;
        }
        if (tag != "D") throw Malformed();
        auto made = std::make_shared<IndexNode>();
        visitIndexNode(*this, *made);
        indexNodes_.push_back(made);
        node = std::move(made);
    }
    void expr(ExprPtr& node) {
        std::string_view tag = word();
        if (tag == "N") return node.reset();
        if (tag == "R") {
            node = exprNodes_.at(bounded(static_cast<int64_t>(exprNodes_.size())));
            return;
        }
        if (tag != "D") throw Malformed();
        auto made = std::make_shared<Expr>();
        visitExpr(*this, *made);
        exprNodes_.push_back(made);
        node = std::move(made);
    }

    bool atEnd() const { return pos_ == text_.size(); }

private:
    std::string_view word() {
        const size_t end = text_.find(' ', pos_);
        if (end == std::string_view::npos) throw Malformed();
        std::string_view token = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return token;
    }
    int64_t readInteger() {
        std::string_view token = word();
        int64_t value = 0;
        auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error != std::errc() || end != token.data() + token.size()) throw Malformed();
        return value;
    }
    /// An integer in [0, limit): counts, enum values and references.
    size_t bounded(int64_t limit) {
        const int64_t value = readInteger();
        if (value < 0 || value >= limit) throw Malformed();
        return static_cast<size_t>(value);
    }
    // Every element takes at least one character, so a corrupt count cannot ask for more than the text holds.
    size_t count() { return bounded(static_cast<int64_t>(text_.size()) + 1); }

    std::string_view text_;
    size_t pos_ = 0;
    std::vector<Index> indexNodes_;
    std::vector<ExprPtr> exprNodes_;
};

}  // namespace

std::string encodeSchedule(const Schedule& schedule) {
    Writer w;
    w.string(std::string(kFormat));
    visitSchedule(w, schedule);
    return w.take();
}

std::optional<Schedule> decodeSchedule(const std::string& text) {
    try {
        Reader r(text);
        std::string format;
        r.string(format);
        if (format != kFormat) return std::nullopt;
        Schedule schedule;
        visitSchedule(r, schedule);
        if (!r.atEnd()) return std::nullopt;
        return schedule;
    } catch (const Malformed&) {
        return std::nullopt;
    } catch (const std::out_of_range&) {
        return std::nullopt;
    }
}

}  // namespace eng::inductor
