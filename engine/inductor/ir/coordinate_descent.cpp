// Coordinate descent over launch configurations (see coordinate_descent.h).
#include "inductor/ir/coordinate_descent.h"

#include <map>

#include <fmt/format.h>

namespace eng::inductor {

namespace {

std::string configText(const std::vector<LaunchCoordinate>& coordinates, const std::vector<size_t>& choice) {
    std::string text;
    for (size_t c = 0; c < coordinates.size(); ++c)
        text += fmt::format("{}{}={}", c ? " " : "", coordinates[c].name, coordinates[c].values[choice[c]]);
    return text;
}

}  // namespace

DescentResult coordinateDescent(const std::vector<LaunchCoordinate>& coordinates, std::vector<size_t> start,
                                const std::function<double(const std::vector<size_t>&)>& timeOf) {
    constexpr double kImprovement = 0.98;
    std::map<std::vector<size_t>, double> timed;
    std::string report;
    auto measure = [&](const std::vector<size_t>& choice) {
        if (auto found = timed.find(choice); found != timed.end()) return found->second;
        const double micros = timeOf(choice);
        timed[choice] = micros;
        report += fmt::format("{}{} {:.1f} us", report.empty() ? "" : ", ", configText(coordinates, choice), micros);
        return micros;
    };
    DescentResult result{start, measure(start), ""};
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t c = 0; c < coordinates.size(); ++c)
            for (int step : {1, -1}) {
                const int64_t next = static_cast<int64_t>(result.choice[c]) + step;
                if (next < 0 || next >= static_cast<int64_t>(coordinates[c].values.size())) continue;
                std::vector<size_t> candidate = result.choice;
                candidate[c] = static_cast<size_t>(next);
                const double micros = measure(candidate);
                if (micros < result.micros * kImprovement) {
                    result.choice = std::move(candidate);
                    result.micros = micros;
                    moved = true;
                }
            }
    }
    result.report = fmt::format("coordinate descent: {}; kept {} ({:.1f} us)", report, configText(coordinates, result.choice), result.micros);
    return result;
}

}  // namespace eng::inductor
