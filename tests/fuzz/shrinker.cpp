// Greedy delta debugging over a program's parts (shrinker.h): each candidate is rendered and rerun against the
// eager reference and the one configuration that failed.
#include "shrinker.h"

#include <functional>

namespace cwb::fuzz {
namespace {

bool mentions(const Program& program, const std::string& name) {
    for (const Statement& s : program.body)
        for (const std::string& line : s.lines) {
            for (size_t at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) {
                bool startOk = at == 0 || !(std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_');
                size_t end = at + name.size();
                bool endOk = end == line.size() || !(std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_');
                if (startOk && endOk) return true;
            }
        }
    return false;
}

}  // namespace

Program shrinkProgram(Program program, const Verdict& failure, const std::string& device, int timeoutSeconds) {
    std::vector<Config> configs;
    if (const Config* config = findConfig(device, failure.config)) configs.push_back(*config);
    else configs = compiledConfigs(device);
    auto stillFails = [&](const Program& candidate) {
        return checkProgram(renderProgram(candidate), device, configs, timeoutSeconds).sameFailure(failure);
    };
    auto tryCandidate = [&](const Program& candidate) {
        if (!stillFails(candidate)) return false;
        program = candidate;
        return true;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = program.body.size(); i-- > 0;) {
            Program candidate = program;
            candidate.body.erase(candidate.body.begin() + static_cast<long>(i));
            changed |= tryCandidate(candidate);
        }
        for (size_t i = 0; program.sizes.size() > 1 && i < program.sizes.size(); ++i) {
            Program candidate = program;
            candidate.sizes.erase(candidate.sizes.begin() + static_cast<long>(i));
            if (tryCandidate(candidate)) {
                changed = true;
                break;
            }
        }
        for (size_t i = program.params.size(); i-- > 0;) {
            if (program.params.size() == 1 || mentions(program, program.params[i])) continue;
            Program candidate = program;
            candidate.params.erase(candidate.params.begin() + static_cast<long>(i));
            candidate.paramInits.erase(candidate.paramInits.begin() + static_cast<long>(i));
            changed |= tryCandidate(candidate);
        }
        if (!program.dynamic.empty()) {
            Program candidate = program;
            candidate.dynamic.clear();
            changed |= tryCandidate(candidate);
        }
        if (program.scalarArg && !mentions(program, "k")) {
            Program candidate = program;
            candidate.scalarArg = false;
            changed |= tryCandidate(candidate);
        }
    }
    return program;
}

}  // namespace cwb::fuzz
