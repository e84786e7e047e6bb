// The S-expression printer: one visitor over expressions and one over statements, writing into a string.
#include "frontend/ast_printer.h"

#include <fmt/core.h>

#include "python/python_repr.h"

namespace eng::frontend {

namespace {

class AstPrinter {
public:
    explicit AstPrinter(const AstPrintOptions& options) : options_(options) {}

    std::string expr(const Expr& e);
    std::string stmt(const Stmt& s);

private:
    std::string head(std::string_view name, const SourceRange& range) const {
        if (!options_.ranges) return std::string(name);
        return fmt::format("{}@{}:{}-{}:{}", name, range.begin.line, range.begin.column, range.end.line,
                           range.end.column);
    }
    std::string optional(const ExprPtr& e) { return e ? expr(*e) : "_"; }
    std::string list(const ExprList& items) {
        std::string out;
        for (const ExprPtr& item : items) out += " " + expr(*item);
        return out;
    }
    std::string block(std::string_view name, const StmtList& body) {
        std::string out = fmt::format("({}", name);
        for (const StmtPtr& s : body) out += " " + stmt(*s);
        return out + ")";
    }
    std::string constant(const ConstantValue& value) const;
    std::string parameter(const Parameter& p, const Expr* defaultValue);
    std::string parameters(const Parameters& params);
    std::string clauses(const std::vector<ComprehensionClause>& clauses);

    const AstPrintOptions& options_;
};

std::string AstPrinter::constant(const ConstantValue& value) const {
    return std::visit(Overloaded{
                          [](NoneValue) -> std::string { return "None"; },
                          [](EllipsisValue) -> std::string { return "..."; },
                          [](bool b) -> std::string { return b ? "True" : "False"; },
                          [](int64_t i) -> std::string { return std::to_string(i); },
                          [](double d) -> std::string { return python::floatRepr(d); },
                          [](const std::string& s) -> std::string { return python::stringRepr(s); },
                      },
                      value);
}

std::string AstPrinter::parameter(const Parameter& p, const Expr* defaultValue) {
    std::string out = p.annotation ? fmt::format("(: {} {})", p.name, expr(*p.annotation)) : p.name;
    return defaultValue ? fmt::format("(= {} {})", out, expr(*defaultValue)) : out;
}

/// (params a (= b 1) / c * d (= e 2) **kw): positional-only, '/', positional, '*' or *args, keyword-only, **kw.
std::string AstPrinter::parameters(const Parameters& params) {
    std::string out = "(params";
    size_t positionalCount = params.positionalOnly.size() + params.positional.size();
    size_t firstDefault = positionalCount - params.defaults.size();
    size_t index = 0;
    auto positional = [&](const Parameter& p) {
        const Expr* defaultValue = index >= firstDefault ? params.defaults[index - firstDefault].get() : nullptr;
        out += " " + parameter(p, defaultValue);
        ++index;
    };
    for (const Parameter& p : params.positionalOnly) positional(p);
    if (!params.positionalOnly.empty()) out += " /";
    for (const Parameter& p : params.positional) positional(p);
    if (params.varArgs) {
        out += " *" + parameter(*params.varArgs, nullptr);
    } else if (!params.keywordOnly.empty()) {
        out += " *";
    }
    for (size_t i = 0; i < params.keywordOnly.size(); ++i)
        out += " " + parameter(params.keywordOnly[i], params.keywordOnlyDefaults[i].get());
    if (params.varKeywords) out += " **" + parameter(*params.varKeywords, nullptr);
    return out + ")";
}

std::string AstPrinter::clauses(const std::vector<ComprehensionClause>& clauses) {
    std::string out;
    for (const ComprehensionClause& clause : clauses) {
        out += fmt::format(" ({} {} {}", head("for", clause.range), expr(*clause.target), expr(*clause.iter));
        for (const ExprPtr& condition : clause.conditions) out += " (if " + expr(*condition) + ")";
        out += ")";
    }
    return out;
}

std::string AstPrinter::expr(const Expr& e) {
    auto node = [&](std::string_view name, const std::string& rest) {
        return fmt::format("({}{})", head(name, e.range), rest);
    };
    return std::visit(
        Overloaded{
            [&](const NameExpr& n) { return head(n.id, e.range); },
            [&](const ConstantExpr& c) { return head(constant(c.value), e.range); },
            [&](const FStringExpr& f) { return node("f-string", list(f.parts)); },
            [&](const FormattedValueExpr& f) {
                std::string rest = " " + expr(*f.value);
                if (f.conversion) rest += fmt::format(" !{}", f.conversion);
                if (f.formatSpec) rest += " " + expr(*f.formatSpec);
                return node("format", rest);
            },
            [&](const AttributeExpr& a) { return node(".", fmt::format(" {} {}", expr(*a.value), a.attr)); },
            [&](const SubscriptExpr& s) {
                return node("subscript", fmt::format(" {} {}", expr(*s.value), expr(*s.index)));
            },
            [&](const SliceExpr& s) {
                return node("slice", fmt::format(" {} {} {}", optional(s.lower), optional(s.upper), optional(s.step)));
            },
            [&](const StarredExpr& s) { return node("*", " " + expr(*s.value)); },
            [&](const CallExpr& c) {
                std::string rest = " " + expr(*c.func) + list(c.args);
                for (const Keyword& k : c.keywords) {
                    rest += k.name.empty() ? fmt::format(" (** {})", expr(*k.value))
                                           : fmt::format(" (kw {} {})", k.name, expr(*k.value));
                }
                return node("call", rest);
            },
            [&](const UnaryExpr& u) { return node(operatorSymbol(u.op), " " + expr(*u.operand)); },
            [&](const BinaryExpr& b) {
                return node(operatorSymbol(b.op), fmt::format(" {} {}", expr(*b.left), expr(*b.right)));
            },
            [&](const BoolOpExpr& b) { return node(operatorSymbol(b.op), list(b.values)); },
            [&](const CompareExpr& c) {
                std::string rest = " " + expr(*c.left);
                for (size_t i = 0; i < c.ops.size(); ++i)
                    rest += fmt::format(" {} {}", operatorSymbol(c.ops[i]), expr(*c.comparators[i]));
                return node("compare", rest);
            },
            [&](const ConditionalExpr& c) {
                return node("if-expr", fmt::format(" {} {} {}", expr(*c.test), expr(*c.body), expr(*c.orelse)));
            },
            [&](const NamedExpr& n) { return node(":=", fmt::format(" {} {}", expr(*n.target), expr(*n.value))); },
            [&](const LambdaExpr& l) {
                return node("lambda", fmt::format(" {} {}", parameters(l.params), expr(*l.body)));
            },
            [&](const TupleExpr& t) { return node("tuple", list(t.elements)); },
            [&](const ListExpr& l) { return node("list", list(l.elements)); },
            [&](const SetExpr& s) { return node("set", list(s.elements)); },
            [&](const DictExpr& d) {
                std::string rest;
                for (const DictItem& item : d.items) {
                    rest += item.key ? fmt::format(" ({} {})", expr(*item.key), expr(*item.value))
                                     : fmt::format(" (** {})", expr(*item.value));
                }
                return node("dict", rest);
            },
            [&](const ComprehensionExpr& c) {
                static constexpr std::string_view kNames[] = {"listcomp", "setcomp", "dictcomp", "genexpr"};
                std::string rest = " " + expr(*c.element);
                if (c.value) rest += " " + expr(*c.value);
                return node(kNames[static_cast<int>(c.kind)], rest + clauses(c.clauses));
            },
            [&](const YieldExpr& y) {
                return node(y.from ? "yield_from" : "yield", y.value ? " " + expr(*y.value) : "");
            },
        },
        e.node);
}

std::string AstPrinter::stmt(const Stmt& s) {
    auto node = [&](std::string_view name, const std::string& rest) {
        return fmt::format("({}{})", head(name, s.range), rest);
    };
    auto orelse = [&](const StmtList& body) { return body.empty() ? std::string() : " " + block("else", body); };
    auto aliases = [](const std::vector<ImportAlias>& names) {
        std::string out;
        for (const ImportAlias& alias : names)
            out += alias.asName.empty() ? " " + alias.name : fmt::format(" (as {} {})", alias.name, alias.asName);
        return out;
    };
    auto words = [](const std::vector<std::string>& names) {
        std::string out;
        for (const std::string& name : names) out += " " + name;
        return out;
    };
    return std::visit(
        Overloaded{
            [&](const FunctionDefStmt& f) {
                std::string rest = fmt::format(" {} {}", f.name, parameters(f.params));
                if (!f.decorators.empty()) rest += " (decorators" + list(f.decorators) + ")";
                if (f.returns) rest += " (returns " + expr(*f.returns) + ")";
                return node("def", rest + " " + block("body", f.body));
            },
            [&](const ClassDefStmt& c) {
                std::string rest = " " + c.name;
                if (!c.bases.empty()) rest += " (base" + list(c.bases) + ")";
                if (c.metaclass) rest += " (metaclass " + expr(*c.metaclass) + ")";
                if (!c.decorators.empty()) rest += " (decorators" + list(c.decorators) + ")";
                return node("class", rest + " " + block("body", c.body));
            },
            [&](const ReturnStmt& r) { return node("return", r.value ? " " + expr(*r.value) : ""); },
            [&](const DeleteStmt& d) { return node("del", list(d.targets)); },
            [&](const AssignStmt& a) { return node("=", list(a.targets) + " " + expr(*a.value)); },
            [&](const AugAssignStmt& a) {
                return node(fmt::format("{}=", operatorSymbol(a.op)),
                            fmt::format(" {} {}", expr(*a.target), expr(*a.value)));
            },
            [&](const AnnAssignStmt& a) {
                std::string rest = fmt::format(" {} {}", expr(*a.target), expr(*a.annotation));
                if (a.value) rest += " " + expr(*a.value);
                return node("ann", rest);
            },
            [&](const ForStmt& f) {
                return node("for", fmt::format(" {} {} {}{}", expr(*f.target), expr(*f.iter), block("body", f.body),
                                               orelse(f.orelse)));
            },
            [&](const WhileStmt& w) {
                return node("while", fmt::format(" {} {}{}", expr(*w.test), block("body", w.body), orelse(w.orelse)));
            },
            [&](const IfStmt& i) {
                return node("if", fmt::format(" {} {}{}", expr(*i.test), block("body", i.body), orelse(i.orelse)));
            },
            [&](const WithStmt& w) {
                std::string rest;
                for (const WithItem& item : w.items)
                    rest += item.target ? fmt::format(" (item {} {})", expr(*item.context), expr(*item.target))
                                        : fmt::format(" (item {})", expr(*item.context));
                return node("with", rest + " " + block("body", w.body));
            },
            [&](const RaiseStmt& r) {
                std::string rest = r.exception ? " " + expr(*r.exception) : "";
                if (r.cause) rest += " (from " + expr(*r.cause) + ")";
                return node("raise", rest);
            },
            [&](const TryStmt& t) {
                std::string rest = " " + block("body", t.body);
                for (const ExceptHandler& h : t.handlers) {
                    std::string handler = h.type ? " " + expr(*h.type) : "";
                    if (!h.name.empty()) handler += " (as " + h.name + ")";
                    for (const StmtPtr& statement : h.body) handler += " " + stmt(*statement);
                    rest += fmt::format(" ({}{})", head("except", h.range), handler);
                }
                rest += orelse(t.orelse);
                if (!t.finalbody.empty()) rest += " " + block("finally", t.finalbody);
                return node("try", rest);
            },
            [&](const AssertStmt& a) {
                return node("assert", " " + expr(*a.test) + (a.message ? " " + expr(*a.message) : ""));
            },
            [&](const ImportStmt& i) { return node("import", aliases(i.names)); },
            [&](const ImportFromStmt& i) {
                return node("from", fmt::format(" {} import{}", i.module, aliases(i.names)));
            },
            [&](const GlobalStmt& g) { return node("global", words(g.names)); },
            [&](const NonlocalStmt& n) { return node("nonlocal", words(n.names)); },
            [&](const ExprStmt& e) { return node("expr", " " + expr(*e.value)); },
            [&](const PassStmt&) { return node("pass", ""); },
            [&](const BreakStmt&) { return node("break", ""); },
            [&](const ContinueStmt&) { return node("continue", ""); },
        },
        s.node);
}

}  // namespace

std::string printExpr(const Expr& expr, const AstPrintOptions& options) {
    return AstPrinter(options).expr(expr);
}

std::string printStmt(const Stmt& stmt, const AstPrintOptions& options) {
    return AstPrinter(options).stmt(stmt);
}

std::string printModule(const Module& module, const AstPrintOptions& options) {
    AstPrinter printer(options);
    std::string out;
    for (const StmtPtr& s : module.body) out += printer.stmt(*s) + "\n";
    return out;
}

}  // namespace eng::frontend
