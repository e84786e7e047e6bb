// The trace file's schema: numbered migrations, the version stored in the file, and opening rules.
// A file newer than this build is refused with a clear message; an older one is migrated in place.
#pragma once

#include <memory>
#include <string>

#include "store/sqlite_db.h"

namespace traces {

/// The schema version this build writes; migrations 1..kSchemaVersion exist.
inline constexpr int kSchemaVersion = 4;
/// Stored in the `meta` table so that other SQLite files are told apart from traces.
inline constexpr const char* kTraceFormatName = "cwb-trace";

/// How a trace is written. Shared: WAL, so that readers (a workbench following a run) see each commit while the
/// writer goes on. Exclusive: nobody reads the file until the writer is done (an import), so it is locked and kept
/// crash-safe with a rollback journal, which writes each new page once where WAL writes it twice; a reader that
/// comes meanwhile is told the file is locked, and one that comes after a crash rolls the journal back.
enum class WriteAccess { Shared, Exclusive };

/// Creates a new trace file (replacing any file at `path`) with the current schema, or with the migrations up to
/// an older `schemaVersion` (files as earlier cwb versions wrote them, for tests of the migrations).
std::unique_ptr<Database> createTraceDatabase(const std::string& path, int schemaVersion = kSchemaVersion,
                                              WriteAccess access = WriteAccess::Shared);

/// Opens an existing trace for writing, migrating an older schema. Throws DbError on newer or foreign files.
std::unique_ptr<Database> openTraceDatabaseForWriting(const std::string& path);

/// Opens an existing trace read-only. Throws DbError on foreign files or on a schema newer than this build;
/// an older schema is reported so the caller can migrate (readers need the current one).
std::unique_ptr<Database> openTraceDatabaseForReading(const std::string& path, int* version = nullptr);

/// The schema version stored in an open database (0 for an empty file).
int storedSchemaVersion(Database& db);

/// True when the file starts with SQLite's magic header; used to tell `.db` traces from raw logs.
bool looksLikeSqliteFile(const std::string& path);

}  // namespace traces
