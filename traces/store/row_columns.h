// Column tables: each column of a trace table once, with its SQL declaration and the model member it holds.
// The schema's CREATE TABLE, the writer's INSERT/UPDATE and binding, and the reader's SELECT and decoding all
// derive from these tables (see trace_tables.h), so a column is added in one place.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/trace_model.h"
#include "store/json_columns.h"
#include "store/sqlite_db.h"

namespace traces {

// --- values: how a model value is stored in a column and read back -------------------------------------------

inline void putValue(Statement& s, int i, int64_t v) { s.bind(i, v); }
inline void putValue(Statement& s, int i, int v) { s.bind(i, v); }
inline void putValue(Statement& s, int i, double v) { s.bind(i, v); }
inline void putValue(Statement& s, int i, bool v) { s.bind(i, v ? 1 : 0); }
inline void putValue(Statement& s, int i, const std::string& v) { s.bind(i, v); }
inline void putValue(Statement& s, int i, CompileStatus v) { s.bind(i, toString(v)); }
inline void putValue(Statement& s, int i, GraphKind v) { s.bind(i, toString(v)); }
inline void putValue(Statement& s, int i, SessionKind v) { s.bind(i, toString(v)); }
inline void putValue(Statement& s, int i, const std::vector<std::string>& v) { s.bind(i, stringsToJson(v)); }
inline void putValue(Statement& s, int i, const Stack& v) { s.bind(i, stackToJson(v)); }
inline void putValue(Statement& s, int i, const std::vector<GraphNode>& v) { s.bind(i, graphNodesToJson(v)); }
template <class T>
void putValue(Statement& s, int i, const std::optional<T>& v) {
    if (v) putValue(s, i, *v);
    else s.bindNull(i);
}

inline void getValue(const Statement& q, int c, int64_t& out) { out = q.int64(c); }
inline void getValue(const Statement& q, int c, int& out) { out = q.int32(c); }
inline void getValue(const Statement& q, int c, double& out) { out = q.real(c); }
inline void getValue(const Statement& q, int c, bool& out) { out = q.int64(c) != 0; }
inline void getValue(const Statement& q, int c, std::string& out) { out = q.text(c); }
inline void getValue(const Statement& q, int c, CompileStatus& out) {
    out = compileStatusFromString(q.text(c)).value_or(CompileStatus::Unknown);
}
inline void getValue(const Statement& q, int c, GraphKind& out) {
    out = graphKindFromString(q.text(c)).value_or(GraphKind::Other);
}
inline void getValue(const Statement& q, int c, SessionKind& out) {
    out = sessionKindFromString(q.text(c)).value_or(SessionKind::ImportedLog);
}
inline void getValue(const Statement& q, int c, std::vector<std::string>& out) { out = stringsFromJson(q.text(c)); }
inline void getValue(const Statement& q, int c, Stack& out) { out = stackFromJson(q.text(c)); }
inline void getValue(const Statement& q, int c, std::vector<GraphNode>& out) { out = graphNodesFromJson(q.text(c)); }
template <class T>
void getValue(const Statement& q, int c, std::optional<T>& out) {
    if (q.isNull(c)) {
        out.reset();
        return;
    }
    T value{};
    getValue(q, c, value);
    out = std::move(value);
}

// --- columns and tables --------------------------------------------------------------------------------------

template <class Row>
struct Column {
    const char* name;
    const char* declaration;  ///< SQL type and constraints, as in CREATE TABLE
    /// Null for a column the caller binds itself (a parent's id, a payload id).
    void (*bind)(Statement&, int index, const Row&) = nullptr;
    /// Null for a column not read back into the row (derived text, a parent's id the caller reads).
    void (*read)(const Statement&, int column, Row&) = nullptr;
    /// An UPDATE keeps the stored value when the row's is empty (large texts that callers need not keep).
    bool updateKeepsStoredWhenEmpty = false;
    /// Orders rows by this column as SQLite orders its stored values (rows kept in memory sort by the reader's
    /// ORDER BY through these); null for columns not held in the row or without an order.
    bool (*less)(const Row&, const Row&) = nullptr;
    /// True when two rows hold the same value in this column; null for columns not held in the row.
    bool (*equal)(const Row&, const Row&) = nullptr;
};

template <class Row, size_t N>
struct Table {
    const char* name;
    std::array<Column<Row>, N> columns;
    const char* constraints = "";  ///< table constraints after the columns ("PRIMARY KEY (graph_id, idx)")
    const char* indexes = "";      ///< CREATE INDEX statements
    const char* readOrder = "";    ///< ORDER BY of the reader
};

template <class Row, class... Columns>
constexpr auto makeTable(const char* name, const char* constraints, const char* indexes, const char* readOrder,
                         Columns... columns) {
    return Table<Row, sizeof...(Columns)>{name, {columns...}, constraints, indexes, readOrder};
}

namespace column_detail {
template <class M>
struct MemberOf;
template <class C, class T>
struct MemberOf<T C::*> {
    using Class = C;
};
template <class F>
struct ArgumentOf;
template <class R, class A>
struct ArgumentOf<R (*)(A)> {
    using Type = std::remove_cvref_t<A>;
};
}  // namespace column_detail

/// A column holding the member reached through `Path` (`&Compile::key, &CompileKey::frameId` for nested ones).
template <auto First, auto... Rest>
constexpr auto field(const char* name, const char* declaration) {
    using Row = typename column_detail::MemberOf<decltype(First)>::Class;
    using Value = std::remove_cvref_t<decltype(((std::declval<const Row&>().*First) .* ... .*Rest))>;
    Column<Row> column{
        name, declaration,
        [](Statement& s, int i, const Row& row) {
            const auto& value = ((row.*First) .* ... .*Rest);
            // The row outlives the statement's run (bindRow, run, reset): its text need not be copied.
            if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, std::string>) s.bindUncopied(i, value);
            else putValue(s, i, value);
        },
        [](const Statement& q, int c, Row& row) { getValue(q, c, ((row.*First) .* ... .*Rest)); }};
    // std::optional orders an empty value first, as SQLite orders NULL; strings compare bytewise as its BINARY.
    if constexpr (std::totally_ordered<Value>)
        column.less = [](const Row& a, const Row& b) { return ((a.*First) .* ... .*Rest) < ((b.*First) .* ... .*Rest); };
    column.equal = [](const Row& a, const Row& b) { return ((a.*First) .* ... .*Rest) == ((b.*First) .* ... .*Rest); };
    return column;
}

/// Like field, with `updateKeepsStoredWhenEmpty` set.
template <auto First, auto... Rest>
constexpr auto keptWhenEmpty(const char* name, const char* declaration) {
    auto column = field<First, Rest...>(name, declaration);
    column.updateKeepsStoredWhenEmpty = true;
    return column;
}

/// A column written from `Derive(row)` and never read back (the reader rebuilds it from other columns).
template <auto Derive>
constexpr auto derived(const char* name, const char* declaration) {
    using Row = typename column_detail::ArgumentOf<decltype(Derive)>::Type;
    return Column<Row>{name, declaration, [](Statement& s, int i, const Row& row) { putValue(s, i, Derive(row)); }};
}

/// A column the caller binds and reads itself: the id of a parent row that the model row does not hold.
template <class Row>
constexpr Column<Row> external(const char* name, const char* declaration) {
    return Column<Row>{name, declaration};
}

// --- SQL derived from a table --------------------------------------------------------------------------------

template <class Row, size_t N>
std::string createTableSql(const Table<Row, N>& table) {
    std::string sql = std::string("CREATE TABLE ") + table.name + " (";
    for (size_t i = 0; i < N; ++i) {
        sql += i ? ",\n  " : "\n  ";
        sql += std::string(table.columns[i].name) + " " + table.columns[i].declaration;
    }
    if (*table.constraints) sql += std::string(",\n  ") + table.constraints;
    sql += "\n);\n";
    return sql + table.indexes;
}

/// The columns' names, separated by commas, each prefixed with `alias.` when an alias is given.
template <class Row, size_t N>
std::string columnList(const Table<Row, N>& table, const std::string& alias = "") {
    std::string list;
    for (size_t i = 0; i < N; ++i) {
        if (i) list += ", ";
        if (!alias.empty()) list += alias + ".";
        list += table.columns[i].name;
    }
    return list;
}

/// "INSERT INTO t(a, b, ...) VALUES (?,?,...)": bind index i + 1 is column i.
template <class Row, size_t N>
std::string insertSql(const Table<Row, N>& table, const char* verb = "INSERT") {
    std::string sql = std::string(verb) + " INTO " + table.name + "(" + columnList(table) + ") VALUES (";
    for (size_t i = 0; i < N; ++i) sql += i ? ",?" : "?";
    return sql + ")";
}

/// "UPDATE t SET a=?2, ... WHERE id=?1", with the bind indexes of insertSql, so bindRow serves both.
template <class Row, size_t N>
std::string updateByIdSql(const Table<Row, N>& table) {
    std::string sets, where;
    for (size_t i = 0; i < N; ++i) {
        const Column<Row>& column = table.columns[i];
        std::string param = "?" + std::to_string(i + 1);
        if (std::string_view(column.name) == "id") {
            where = " WHERE id=" + param;
            continue;
        }
        if (!sets.empty()) sets += ", ";
        sets += std::string(column.name) + "=";
        if (column.updateKeepsStoredWhenEmpty)
            sets += "CASE WHEN " + param + " = '' THEN " + column.name + " ELSE " + param + " END";
        else
            sets += param;
    }
    return std::string("UPDATE ") + table.name + " SET " + sets + where;
}

/// The column names of the table's read order ("session_id, seq, id"), in order.
template <class Row, size_t N>
std::vector<std::string_view> readOrderNames(const Table<Row, N>& table) {
    std::vector<std::string_view> names;
    std::string_view rest = table.readOrder;
    while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view name = rest.substr(0, comma);
        while (name.starts_with(' ')) name.remove_prefix(1);
        names.push_back(name);
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return names;
}

/// " ORDER BY a, b" of the reader (each name prefixed with `alias.` when an alias is given); empty without one.
template <class Row, size_t N>
std::string orderBySql(const Table<Row, N>& table, const std::string& alias = "") {
    std::string sql;
    for (std::string_view name : readOrderNames(table))
        sql += (sql.empty() ? " ORDER BY " : ", ") + (alias.empty() ? "" : alias + ".") + std::string(name);
    return sql;
}

/// "SELECT a, b, ... FROM t ORDER BY ...": result column i is table column i.
template <class Row, size_t N>
std::string selectSql(const Table<Row, N>& table) {
    return "SELECT " + columnList(table) + " FROM " + table.name + orderBySql(table);
}

/// The 1-based bind index (and 0-based result column + 1) of the column `name`; 0 when there is none.
template <class Row, size_t N>
constexpr int columnNumber(const Table<Row, N>& table, std::string_view name) {
    for (size_t i = 0; i < N; ++i)
        if (name == table.columns[i].name) return static_cast<int>(i + 1);
    return 0;
}

/// Binds every column the table knows how to bind; the caller binds the external ones.
template <class Row, size_t N>
void bindRow(Statement& s, const Table<Row, N>& table, const Row& row) {
    for (size_t i = 0; i < N; ++i)
        if (table.columns[i].bind) table.columns[i].bind(s, static_cast<int>(i + 1), row);
}

/// The columns of the table's read order (its ORDER BY) that rows hold; columns the rows do not hold (a rowid,
/// a parent's id) are skipped, which a stable sort turns into insertion order, as SQLite's rowids are.
template <class Row, size_t N>
std::vector<size_t> readOrderColumns(const Table<Row, N>& table) {
    std::vector<size_t> order;
    for (std::string_view name : readOrderNames(table)) {
        int number = columnNumber(table, name);
        if (number > 0 && table.columns[static_cast<size_t>(number - 1)].less)
            order.push_back(static_cast<size_t>(number - 1));
    }
    return order;
}

/// Sorts rows held in memory into the order the reader selects them from a trace file.
template <class Row, size_t N>
void sortInReadOrder(const Table<Row, N>& table, std::vector<Row>& rows) {
    std::vector<size_t> order = readOrderColumns(table);
    if (order.empty()) return;
    auto less = [&](const Row& a, const Row& b) {
        for (size_t i : order) {
            if (table.columns[i].less(a, b)) return true;
            if (table.columns[i].less(b, a)) return false;
        }
        return false;
    };
    if (!std::is_sorted(rows.begin(), rows.end(), less)) std::stable_sort(rows.begin(), rows.end(), less);
}

/// The first column in which two rows differ, or null when every column the rows hold is equal.
template <class Row, size_t N>
const char* firstDifferentColumn(const Table<Row, N>& table, const Row& a, const Row& b) {
    for (const Column<Row>& column : table.columns)
        if (column.equal && !column.equal(a, b)) return column.name;
    return nullptr;
}

/// Decodes the current result row of a statement made by selectSql (or with its columns first).
template <class Row, size_t N>
Row readRow(const Statement& q, const Table<Row, N>& table) {
    Row row{};
    for (size_t i = 0; i < N; ++i)
        if (table.columns[i].read) table.columns[i].read(q, static_cast<int>(i), row);
    return row;
}

}  // namespace traces
