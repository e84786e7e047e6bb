// Scope analysis in two steps, as CPython's symtable does: a walk that records, per scope, which names are
// parameters, bound, used or declared global/nonlocal; then a top-down resolution that decides locals, cells,
// free variables and globals, with free variables flowing up through every scope in between.
#include "frontend/scope.h"

#include <fmt/core.h>

#include <algorithm>
#include <set>

namespace eng::frontend {

namespace {

enum SymbolFlag : unsigned {
    kParameter = 1u << 0,
    kAssigned = 1u << 1,
    kUsed = 1u << 2,
    kDeclaredGlobal = 1u << 3,
    kDeclaredNonlocal = 1u << 4,
};

// super() with no arguments reads the class from this implicit cell, which the class body provides.
constexpr const char* kClassCell = "__class__";

}  // namespace

// Not in the anonymous namespace: ScopeTable befriends it.
class ScopeBuilder {
public:
    explicit ScopeBuilder(const SourceFile& file) : file_(file) {}

    ScopeTable run(const Module& module);

private:
    struct State {
        Scope* scope;
        std::map<std::string, unsigned> flags;
        std::vector<std::string> order;  // first appearance, for varNames
        std::map<std::string, SourcePos> nonlocalDeclarations;
        std::vector<size_t> children;
    };

    // ---- walk
    size_t openScope(ScopeKind kind, std::string name, const void* node, SourceRange range);
    void closeScope() { stack_.pop_back(); }
    State& current() { return states_[stack_.back()]; }
    void note(const std::string& name, unsigned flag);
    void use(const std::string& name);
    void bind(const std::string& name) { note(name, kAssigned); }
    void bindTarget(const Expr& target);
    void bindNamedTarget(const std::string& name, SourcePos at);
    void declare(const std::vector<std::string>& names, SourcePos at, bool isGlobal);
    void addParameters(const Parameters& params);
    void visitDefaults(const Parameters& params);
    void visitBody(const StmtList& body) {
        for (const StmtPtr& s : body) visitStmt(*s);
    }
    void visitOptional(const ExprPtr& e) {
        if (e) visitExpr(*e);
    }
    void visitList(const ExprList& list) {
        for (const ExprPtr& e : list) visitExpr(*e);
    }
    void visitStmt(const Stmt& s);
    void visitExpr(const Expr& e);
    void visitComprehension(const ComprehensionExpr& c, const Expr& e);

    // ---- resolution
    void resolve(size_t index, const std::set<std::string>& enclosingBound);

    const SourceFile& file_;
    ScopeTable table_;
    std::vector<State> states_;
    std::vector<size_t> stack_;
};

size_t ScopeBuilder::openScope(ScopeKind kind, std::string name, const void* node, SourceRange range) {
    auto scope = std::make_unique<Scope>();
    scope->kind = kind;
    scope->range = range;
    if (stack_.empty()) {
        scope->qualifiedName = name;
    } else {
        const Scope& parent = *current().scope;
        if (parent.kind == ScopeKind::Module) {
            scope->qualifiedName = name;
        } else if (parent.kind == ScopeKind::Class) {
            scope->qualifiedName = parent.qualifiedName + "." + name;
        } else {
            scope->qualifiedName = parent.qualifiedName + ".<locals>." + name;
        }
    }
    scope->name = std::move(name);
    size_t index = states_.size();
    if (!stack_.empty()) current().children.push_back(index);
    states_.push_back(State{scope.get(), {}, {}, {}, {}});
    if (node) table_.byNode_[node] = scope.get();
    table_.scopes_.push_back(std::move(scope));
    stack_.push_back(index);
    return index;
}

void ScopeBuilder::note(const std::string& name, unsigned flag) {
    State& state = current();
    auto [it, inserted] = state.flags.try_emplace(name, 0u);
    if (inserted) state.order.push_back(name);
    it->second |= flag;
}

void ScopeBuilder::use(const std::string& name) {
    note(name, kUsed);
    if (name == "super" && current().scope->isFunctionLike()) note(kClassCell, kUsed);
}

void ScopeBuilder::bindTarget(const Expr& target) {
    if (const auto* name = target.as<NameExpr>()) return bind(name->id);
    if (const auto* tuple = target.as<TupleExpr>()) {
        for (const ExprPtr& element : tuple->elements) bindTarget(*element);
    } else if (const auto* list = target.as<ListExpr>()) {
        for (const ExprPtr& element : list->elements) bindTarget(*element);
    } else if (const auto* starred = target.as<StarredExpr>()) {
        bindTarget(*starred->value);
    } else {
        visitExpr(target);  // attribute and subscript targets only read their parts
    }
}

/// PEP 572: a `:=` target inside comprehensions binds in the nearest enclosing function (nonlocal in each
/// comprehension between) or the module (global there); a class body cannot be that scope.
void ScopeBuilder::bindNamedTarget(const std::string& name, SourcePos at) {
    size_t level = stack_.size() - 1;
    while (level > 0 && states_[stack_[level]].scope->kind == ScopeKind::Comprehension) --level;
    if (level == stack_.size() - 1) return bind(name);
    State& owner = states_[stack_[level]];
    if (owner.scope->kind == ScopeKind::Class)
        throwError(file_, at, "assignment expression within a comprehension cannot be used in a class body");
    const bool global = owner.scope->kind == ScopeKind::Module;
    for (size_t i = level + 1; i < stack_.size(); ++i) {
        State& comprehension = states_[stack_[i]];
        auto [it, inserted] = comprehension.flags.try_emplace(name, 0u);
        if (inserted) comprehension.order.push_back(name);
        it->second |= global ? kDeclaredGlobal : kDeclaredNonlocal;
        comprehension.nonlocalDeclarations.try_emplace(name, at);
    }
    auto [it, inserted] = owner.flags.try_emplace(name, 0u);
    if (inserted) owner.order.push_back(name);
    it->second |= kAssigned;
}

void ScopeBuilder::declare(const std::vector<std::string>& names, SourcePos at, bool isGlobal) {
    std::string_view what = isGlobal ? "global" : "nonlocal";
    if (!isGlobal && current().scope->kind == ScopeKind::Module)
        throwError(file_, at, "nonlocal declaration not allowed at module level");
    for (const std::string& name : names) {
        unsigned flags = current().flags.count(name) ? current().flags[name] : 0u;
        if (flags & kParameter) throwError(file_, at, fmt::format("name '{}' is parameter and {}", name, what));
        if (flags & (isGlobal ? kDeclaredNonlocal : kDeclaredGlobal))
            throwError(file_, at, fmt::format("name '{}' is nonlocal and global", name));
        if (flags & kAssigned)
            throwError(file_, at, fmt::format("name '{}' is assigned to before {} declaration", name, what));
        if (flags & kUsed) throwError(file_, at, fmt::format("name '{}' is used prior to {} declaration", name, what));
        note(name, isGlobal ? kDeclaredGlobal : kDeclaredNonlocal);
        if (!isGlobal) current().nonlocalDeclarations.try_emplace(name, at);
    }
}

void ScopeBuilder::visitDefaults(const Parameters& params) {
    visitList(params.defaults);
    for (const ExprPtr& d : params.keywordOnlyDefaults) visitOptional(d);
    // Annotations are parsed but never evaluated in the subset, so they reference nothing.
}

void ScopeBuilder::addParameters(const Parameters& params) {
    Scope& scope = *current().scope;
    auto add = [&](const Parameter& p) { note(p.name, kParameter); };
    for (const Parameter& p : params.positionalOnly) add(p);
    for (const Parameter& p : params.positional) add(p);
    for (const Parameter& p : params.keywordOnly) add(p);
    if (params.varArgs) add(*params.varArgs);
    if (params.varKeywords) add(*params.varKeywords);
    scope.positionalOnlyArgCount = static_cast<int>(params.positionalOnly.size());
    scope.argCount = static_cast<int>(params.positionalOnly.size() + params.positional.size());
    scope.keywordOnlyArgCount = static_cast<int>(params.keywordOnly.size());
    scope.hasVarArgs = params.varArgs.has_value();
    scope.hasVarKeywords = params.varKeywords.has_value();
}

void ScopeBuilder::visitStmt(const Stmt& s) {
    std::visit(Overloaded{
                   [&](const FunctionDefStmt& f) {
                       visitList(f.decorators);
                       visitDefaults(f.params);
                       bind(f.name);
                       openScope(ScopeKind::Function, f.name, &s, s.range);
                       addParameters(f.params);
                       visitBody(f.body);
                       closeScope();
                   },
                   [&](const ClassDefStmt& c) {
                       visitList(c.bases);
                       visitOptional(c.metaclass);
                       visitList(c.decorators);
                       bind(c.name);
                       openScope(ScopeKind::Class, c.name, &s, s.range);
                       visitBody(c.body);
                       closeScope();
                   },
                   [&](const ReturnStmt& r) { visitOptional(r.value); },
                   [&](const DeleteStmt& d) {
                       for (const ExprPtr& t : d.targets) bindTarget(*t);
                   },
                   [&](const AssignStmt& a) {
                       visitExpr(*a.value);
                       for (const ExprPtr& t : a.targets) bindTarget(*t);
                   },
                   [&](const AugAssignStmt& a) {
                       if (const auto* name = a.target->as<NameExpr>()) {
                           use(name->id);
                           bind(name->id);
                       } else {
                           visitExpr(*a.target);
                       }
                       visitExpr(*a.value);
                   },
                   [&](const AnnAssignStmt& a) {
                       visitOptional(a.value);
                       bindTarget(*a.target);
                       // A class body evaluates the annotations of its names into __annotations__, as Python does.
                       if (current().scope->kind == ScopeKind::Class && a.target->is<NameExpr>()) visitExpr(*a.annotation);
                   },
                   [&](const ForStmt& f) {
                       visitExpr(*f.iter);
                       bindTarget(*f.target);
                       visitBody(f.body);
                       visitBody(f.orelse);
                   },
                   [&](const WhileStmt& w) {
                       visitExpr(*w.test);
                       visitBody(w.body);
                       visitBody(w.orelse);
                   },
                   [&](const IfStmt& i) {
                       visitExpr(*i.test);
                       visitBody(i.body);
                       visitBody(i.orelse);
                   },
                   [&](const WithStmt& w) {
                       for (const WithItem& item : w.items) {
                           visitExpr(*item.context);
                           if (item.target) bindTarget(*item.target);
                       }
                       visitBody(w.body);
                   },
                   [&](const RaiseStmt& r) {
                       visitOptional(r.exception);
                       visitOptional(r.cause);
                   },
                   [&](const TryStmt& t) {
                       visitBody(t.body);
                       for (const ExceptHandler& h : t.handlers) {
                           visitOptional(h.type);
                           if (!h.name.empty()) bind(h.name);
                           visitBody(h.body);
                       }
                       visitBody(t.orelse);
                       visitBody(t.finalbody);
                   },
                   [&](const AssertStmt& a) {
                       visitExpr(*a.test);
                       visitOptional(a.message);
                   },
                   [&](const ImportStmt& i) {
                       for (const ImportAlias& alias : i.names)
                           bind(alias.asName.empty() ? alias.name.substr(0, alias.name.find('.')) : alias.asName);
                   },
                   [&](const ImportFromStmt& i) {
                       for (const ImportAlias& alias : i.names) bind(alias.asName.empty() ? alias.name : alias.asName);
                   },
                   [&](const GlobalStmt& g) { declare(g.names, s.range.begin, true); },
                   [&](const NonlocalStmt& n) { declare(n.names, s.range.begin, false); },
                   [&](const ExprStmt& e) { visitExpr(*e.value); },
                   [&](const PassStmt&) {},
                   [&](const BreakStmt&) {},
                   [&](const ContinueStmt&) {},
               },
               s.node);
}

void ScopeBuilder::visitExpr(const Expr& e) {
    std::visit(Overloaded{
                   [&](const NameExpr& n) { use(n.id); },
                   [&](const ConstantExpr&) {},
                   [&](const FStringExpr& f) { visitList(f.parts); },
                   [&](const FormattedValueExpr& f) {
                       visitExpr(*f.value);
                       visitOptional(f.formatSpec);
                   },
                   [&](const AttributeExpr& a) { visitExpr(*a.value); },
                   [&](const SubscriptExpr& s) {
                       visitExpr(*s.value);
                       visitExpr(*s.index);
                   },
                   [&](const SliceExpr& s) {
                       visitOptional(s.lower);
                       visitOptional(s.upper);
                       visitOptional(s.step);
                   },
                   [&](const StarredExpr& s) { visitExpr(*s.value); },
                   [&](const CallExpr& c) {
                       visitExpr(*c.func);
                       visitList(c.args);
                       for (const Keyword& k : c.keywords) visitExpr(*k.value);
                   },
                   [&](const UnaryExpr& u) { visitExpr(*u.operand); },
                   [&](const BinaryExpr& b) {
                       visitExpr(*b.left);
                       visitExpr(*b.right);
                   },
                   [&](const BoolOpExpr& b) { visitList(b.values); },
                   [&](const CompareExpr& c) {
                       visitExpr(*c.left);
                       visitList(c.comparators);
                   },
                   [&](const ConditionalExpr& c) {
                       visitExpr(*c.test);
                       visitExpr(*c.body);
                       visitExpr(*c.orelse);
                   },
                   [&](const NamedExpr& n) {
                       visitExpr(*n.value);
                       bindNamedTarget(n.target->as<NameExpr>()->id, e.range.begin);
                   },
                   [&](const LambdaExpr& l) {
                       visitDefaults(l.params);
                       openScope(ScopeKind::Lambda, "<lambda>", &e, e.range);
                       addParameters(l.params);
                       visitExpr(*l.body);
                       closeScope();
                   },
                   [&](const TupleExpr& t) { visitList(t.elements); },
                   [&](const ListExpr& l) { visitList(l.elements); },
                   [&](const SetExpr& s) { visitList(s.elements); },
                   [&](const DictExpr& d) {
                       for (const DictItem& item : d.items) {
                           visitOptional(item.key);
                           visitExpr(*item.value);
                       }
                   },
                   [&](const ComprehensionExpr& c) { visitComprehension(c, e); },
                   [&](const YieldExpr& y) {
                       Scope& scope = *current().scope;
                       if (scope.kind == ScopeKind::Comprehension) {
                           const std::string kind = scope.name == "<genexpr>" ? "generator expression"
                                                    : scope.name == "<setcomp>" ? "set comprehension"
                                                    : scope.name == "<dictcomp>" ? "dict comprehension"
                                                                                 : "list comprehension";
                           throwError(file_, e.range.begin, fmt::format("'{}' inside {}", y.from ? "yield from" : "yield", kind));
                       }
                       scope.isGenerator = true;
                       visitOptional(y.value);
                   },
               },
               e.node);
}

/// The first iterable is evaluated in the enclosing scope and passed in as the parameter ".0"; everything
/// else runs in the comprehension's own scope.
void ScopeBuilder::visitComprehension(const ComprehensionExpr& c, const Expr& e) {
    static constexpr const char* kNames[] = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"};
    visitExpr(*c.clauses.front().iter);
    openScope(ScopeKind::Comprehension, kNames[static_cast<int>(c.kind)], &e, e.range);
    current().scope->isGenerator = c.kind == ComprehensionKind::Generator;  // a generator expression is lazy
    note(".0", kParameter);
    current().scope->argCount = 1;
    for (size_t i = 0; i < c.clauses.size(); ++i) {
        if (i > 0) visitExpr(*c.clauses[i].iter);
        bindTarget(*c.clauses[i].target);
        visitList(c.clauses[i].conditions);
    }
    visitExpr(*c.element);
    visitOptional(c.value);
    closeScope();
}

/// Decides every name's kind in scope `index`, resolves its children, then collects the children's free
/// variables: bound here makes them cells; otherwise they pass through as free variables of this scope too.
void ScopeBuilder::resolve(size_t index, const std::set<std::string>& enclosingBound) {
    State& state = states_[index];
    Scope& scope = *state.scope;
    std::set<std::string> cells;
    std::set<std::string> frees;
    for (const std::string& name : state.order) {
        unsigned flags = state.flags[name];
        SymbolKind kind;
        if (flags & kDeclaredGlobal) {
            kind = SymbolKind::GlobalExplicit;
        } else if (flags & kDeclaredNonlocal) {
            if (!enclosingBound.count(name))
                throwError(file_, state.nonlocalDeclarations[name],
                           fmt::format("no binding for nonlocal '{}' found", name));
            kind = SymbolKind::Free;
        } else if (flags & (kParameter | kAssigned)) {
            kind = SymbolKind::Local;
        } else {
            kind = enclosingBound.count(name) && scope.kind != ScopeKind::Module ? SymbolKind::Free
                                                                                 : SymbolKind::GlobalImplicit;
        }
        scope.symbols[name] = kind;
        if (kind == SymbolKind::Free) frees.insert(name);
    }
    // Names visible to nested functions: a class's own names are not (Python's class-scope rule), except the
    // implicit __class__ cell that zero-argument super() needs.
    std::set<std::string> childBound;
    if (scope.kind != ScopeKind::Module) childBound = enclosingBound;
    for (const auto& [name, kind] : scope.symbols) {
        if (kind == SymbolKind::GlobalExplicit) childBound.erase(name);
        if (scope.isFunctionLike() && kind == SymbolKind::Local) childBound.insert(name);
    }
    if (scope.kind == ScopeKind::Class) childBound.insert(kClassCell);
    for (size_t child : state.children) {
        resolve(child, childBound);
        for (const std::string& name : states_[child].scope->freeVars) {
            auto found = scope.symbols.find(name);
            if (scope.kind == ScopeKind::Class && name == kClassCell) {
                cells.insert(name);
            } else if (scope.isFunctionLike() && found != scope.symbols.end() &&
                       (found->second == SymbolKind::Local || found->second == SymbolKind::Cell)) {
                found->second = SymbolKind::Cell;
                cells.insert(name);
            } else {
                frees.insert(name);
                if (found == scope.symbols.end()) scope.symbols[name] = SymbolKind::Free;
            }
        }
        scope.children.push_back(states_[child].scope);
    }
    scope.cellVars.assign(cells.begin(), cells.end());
    scope.freeVars.assign(frees.begin(), frees.end());
    if (!scope.isFunctionLike()) return;
    // Parameters keep their slots even when they are cells (the VM copies the argument into the cell on
    // entry). addParameters noted them first, in Python's order: positional, keyword-only, *args, **kwargs.
    for (const std::string& name : state.order)
        if (state.flags[name] & kParameter) scope.varNames.push_back(name);
    for (const std::string& name : state.order)
        if (!(state.flags[name] & kParameter) && scope.symbols[name] == SymbolKind::Local)
            scope.varNames.push_back(name);
}

ScopeTable ScopeBuilder::run(const Module& module) {
    openScope(ScopeKind::Module, "<module>", nullptr, module.range);
    visitBody(module.body);
    closeScope();
    resolve(0, {});
    return std::move(table_);
}

SymbolKind Scope::lookup(const std::string& symbol) const {
    auto found = symbols.find(symbol);
    return found == symbols.end() ? SymbolKind::GlobalImplicit : found->second;
}

int Scope::localIndex(const std::string& symbol) const {
    auto found = std::find(varNames.begin(), varNames.end(), symbol);
    return found == varNames.end() ? -1 : static_cast<int>(found - varNames.begin());
}

int Scope::derefIndex(const std::string& symbol) const {
    auto cell = std::find(cellVars.begin(), cellVars.end(), symbol);
    if (cell != cellVars.end()) return static_cast<int>(cell - cellVars.begin());
    auto free = std::find(freeVars.begin(), freeVars.end(), symbol);
    if (free != freeVars.end()) return static_cast<int>(cellVars.size() + static_cast<size_t>(free - freeVars.begin()));
    return -1;
}

std::string_view scopeKindName(ScopeKind kind) {
    switch (kind) {
        case ScopeKind::Module: return "module";
        case ScopeKind::Class: return "class";
        case ScopeKind::Function: return "function";
        case ScopeKind::Lambda: return "lambda";
        case ScopeKind::Comprehension: return "comprehension";
    }
    return "?";
}

std::string_view symbolKindName(SymbolKind kind) {
    switch (kind) {
        case SymbolKind::Local: return "local";
        case SymbolKind::Cell: return "cell";
        case SymbolKind::Free: return "free";
        case SymbolKind::GlobalExplicit: return "global";
        case SymbolKind::GlobalImplicit: return "global-implicit";
    }
    return "?";
}

Expected<ScopeTable> analyzeScopes(const Module& module, const SourceFile& file) {
    return catchFrontendError<ScopeTable>([&] { return ScopeBuilder(file).run(module); });
}

std::string describeScopes(const ScopeTable& table) {
    std::string out;
    auto join = [](const std::vector<std::string>& names) {
        std::string text;
        for (const std::string& name : names) text += (text.empty() ? "" : " ") + name;
        return "[" + text + "]";
    };
    auto describe = [&](auto& self, const Scope& scope, int depth) -> void {
        std::vector<std::string> globals;
        for (const auto& [name, kind] : scope.symbols)
            if (kind == SymbolKind::GlobalExplicit || kind == SymbolKind::GlobalImplicit) globals.push_back(name);
        out += fmt::format("{}{} {}: locals={} cells={} free={} globals={}\n",
                           std::string(static_cast<size_t>(depth) * 2, ' '), scopeKindName(scope.kind),
                           scope.qualifiedName, join(scope.varNames), join(scope.cellVars), join(scope.freeVars),
                           join(globals));
        for (const Scope* child : scope.children) self(self, *child, depth + 1);
    };
    describe(describe, table.module(), 0);
    return out;
}

}  // namespace eng::frontend
