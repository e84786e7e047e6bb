// Which artifact payloads the loaded model holds: the texts the views and reports show. Both the trace file's
// reader and the in-memory path apply this one rule; every other payload stays out of the model.
#pragma once

#include <string>
#include <string_view>

namespace traces {

/// True for artifacts whose payload the model keeps (whole, or as modelPayload() trims it).
bool modelKeepsPayload(std::string_view artifactName);

/// The payload as the model holds it: warnings, collective schedules and provenance node mappings whole; cache
/// decisions (JSON) without their `components`, the cache-key dump of tens of KB that nobody shows, and empty when
/// they are not JSON; empty for every other artifact.
std::string modelPayload(std::string_view artifactName, std::string payload);

/// An SQL condition on the artifact name column `nameColumn`, true where modelKeepsPayload is: lets the reader
/// leave the other payloads on disk.
std::string modelKeepsPayloadSql(std::string_view nameColumn);

}  // namespace traces
