// JSON encodings of the list-valued columns (stacks, reason lists, node inputs) shared by writer and reader.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/trace_model.h"

namespace traces {

std::string stackToJson(const Stack& stack);
Stack stackFromJson(std::string_view json);
std::string stringsToJson(const std::vector<std::string>& items);
std::vector<std::string> stringsFromJson(std::string_view json);

}  // namespace traces
