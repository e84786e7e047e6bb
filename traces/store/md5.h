// MD5 of record payloads, to check the `has_payload` digest PyTorch writes into each record.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace traces {

/// Lower-case hex MD5 of `data`, as Python's hashlib.md5(...).hexdigest().
std::string md5Hex(std::string_view data);

}  // namespace traces
