// Cache decisions, symbolic shapes, failures and rank divergence of real torch 2.11 logs (trimmed copies in
// tests/data/torch_traces/insights) against counts make_insights.py took from the full logs with its own parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "importers/import_path.h"
#include "report/compile_insights.h"
#include "report/report.h"
#include "report/trace_index.h"
#include "test_support.h"

using namespace traces;
using nlohmann::json;

namespace {

const std::filesystem::path kDataDir = std::filesystem::path(CWB_TEST_DATA_DIR) / "torch_traces" / "insights";

const json& expectedCounts() {
    static const json counts = json::parse(testsupport::readFile((kDataDir / "expected_counts.json").string()));
    return counts;
}

struct Loaded {
    TraceData trace;
    std::unique_ptr<TraceIndex> index;
    std::unique_ptr<InsightIndex> insights;
};

Loaded load(const std::string& name) {
    Loaded l;
    l.trace = openAsTrace((kDataDir / name).string());
    l.index = std::make_unique<TraceIndex>(l.trace);
    l.insights = std::make_unique<InsightIndex>(l.trace);
    return l;
}

class Insights : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(Insights, PerCompileFactsEqualTheFullLogsCounts) {
    Loaded l = load(GetParam());
    const json& logs = expectedCounts().at(GetParam());
    size_t logCount = 0;
    for (const auto& [file, counts] : logs.items()) logCount += file.ends_with(".log") ? 1 : 0;
    ASSERT_EQ(l.trace.sessions.size(), logCount);
    for (const Session& session : l.trace.sessions) {
        SCOPED_TRACE(session.sourceFile);
        EXPECT_EQ(session.malformedRecords, 0);
        const json& expected = logs.at(session.sourceFile);
        std::set<std::string> seen;
        std::vector<std::string> empty;
        for (const Compile* compile : l.index->session(session.id).compiles)
            if (compile->status == CompileStatus::Empty) empty.push_back(compile->key.str());
        EXPECT_EQ(empty, expected.at("empty_graphs").get<std::vector<std::string>>());
        for (const Compile* compile : l.index->session(session.id).compiles) {
            const CompileInsights& facts = l.insights->compile(compile->id);
            std::string key = compile->key.str();
            bool any = !facts.caches.empty() || !facts.symbols.empty() || !facts.specializations.empty() ||
                       !facts.guardsAddedFast.empty();
            if (!expected.at("compiles").contains(key)) {
                EXPECT_FALSE(any) << key << " has facts the full log does not";
                continue;
            }
            SCOPED_TRACE(key);
            seen.insert(key);
            const json& want = expected.at("compiles").at(key);
            if (want.contains("caches")) {
                std::vector<std::vector<std::string>> got;
                for (const CacheOutcome& c : facts.caches) got.push_back({c.cache, c.result});
                auto wanted = want.at("caches").get<std::vector<std::vector<std::string>>>();
                std::sort(got.begin(), got.end());
                std::sort(wanted.begin(), wanted.end());
                EXPECT_EQ(got, wanted);
            }
            std::vector<std::vector<std::string>> symbols;
            for (const ShapeSymbol& s : facts.symbols) {
                symbols.push_back({s.symbol, s.source, s.value});
                EXPECT_FALSE(s.range.empty());
            }
            EXPECT_EQ(symbols, want.at("symbols").get<std::vector<std::vector<std::string>>>());
            EXPECT_EQ(facts.specializations.size(), want.at("specializations").get<size_t>());
            EXPECT_EQ(facts.guardsAddedFast.size(), want.at("guards_added_fast").get<size_t>());
        }
        for (const auto& [key, value] : expected.at("compiles").items()) EXPECT_TRUE(seen.contains(key)) << key;

        std::multiset<std::pair<std::string, std::string>> failures, wantedFailures;
        for (const CompileFailure& f : sessionFailures(*l.index, session)) {
            failures.insert({l.index->compileById(f.compile.compileId)->key.str(), f.kind});
            EXPECT_FALSE(f.reason.empty()) << f.compile.display;
        }
        for (const json& f : expected.at("failures"))
            wantedFailures.insert({f.at("compile_id").get<std::string>(), f.at("kind").get<std::string>()});
        EXPECT_EQ(failures, wantedFailures);
    }
}

INSTANTIATE_TEST_SUITE_P(RealLogs, Insights,
                         ::testing::Values("mlp_cache_cold", "mlp_cache_warm", "gpt2_dynamic", "ddp_gloo_2ranks",
                                           "breaks_profile"));

TEST(Insights, ReportsShowACompileWithoutAGraphAsEmpty) {
    // breaks_profile's [3/0] restarted, and its second attempt finished with graph_op_count 0 and logged no
    // dynamo_output_graph: tlparse colours it status-empty.
    Loaded l = load("breaks_profile");
    std::ostringstream js, md, html;
    writeJsonReport(l.trace, js);
    writeMarkdownReport(l.trace, md);
    writeHtmlReport(l.trace, html);
    json report = json::parse(js.str());
    std::map<std::string, std::string> statusByKey;
    for (const json& site : report.at("sessions")[0].at("compile_sites"))
        for (const json& compile : site.at("compiles"))
            statusByKey[compile.at("compile_id").get<std::string>()] = compile.at("status").get<std::string>();
    EXPECT_EQ(statusByKey.at("3/0"), "restarted");
    EXPECT_EQ(statusByKey.at("3/0_1"), "empty");
    EXPECT_EQ(statusByKey.at("0/1"), "ok");
    EXPECT_NE(md.str().find("- Status: **empty**"), std::string::npos);
    EXPECT_NE(html.str().find("<span class=\"badge status-empty\">empty</span>"), std::string::npos);
}

TEST(Insights, WarmCacheRunHitsTheFxGraphCacheWhereTheColdRunMissed) {
    for (auto [name, result] : {std::pair("mlp_cache_cold", "miss"), std::pair("mlp_cache_warm", "hit")}) {
        Loaded l = load(name);
        const Compile& compile = l.trace.compiles.front();
        std::string summary = cacheSummaryText(l.insights->compile(compile.id));
        EXPECT_NE(summary.find(std::string("fx_graph ") + result), std::string::npos) << name << ": " << summary;
        EXPECT_NE(summary.find(std::string("inductor ") + result), std::string::npos) << name << ": " << summary;
        EXPECT_NE(summary.find("aotautograd miss"), std::string::npos) << name << ": " << summary;
    }
}

TEST(Insights, SymbolsKeepTheirUserStack) {
    Loaded l = load("gpt2_dynamic");
    const ShapeSymbol* symbol = nullptr;
    for (const Compile& compile : l.trace.compiles)
        for (const ShapeSymbol& s : l.insights->compile(compile.id).symbols) symbol = &s;
    ASSERT_NE(symbol, nullptr);
    EXPECT_EQ(symbol->symbol, "s50");
    EXPECT_EQ(symbol->range, "[2, int_oo]");
    ASSERT_EQ(symbol->userStack.size(), 5u);
    EXPECT_EQ(symbol->userStack.back().function, "forward");
    EXPECT_NE(symbol->userStack.back().file.find("gpt2"), std::string::npos) << symbol->userStack.back().file;
}

TEST(Insights, DivergingRanksAreNamedWithWhatDiffers) {
    Loaded l = load("ddp_gloo_2ranks");
    std::vector<RankDivergence> divergences = rankDivergence(*l.index, *l.insights);
    // From the full logs: rank 1 compiled 0/1 (its input size changed), and logged one more graph break.
    const json& logs = expectedCounts().at("ddp_gloo_2ranks");
    std::vector<std::vector<std::string>> ids;
    std::vector<int> breaks;
    for (const auto& [file, counts] : logs.items()) {
        ids.push_back(counts.at("compile_ids").get<std::vector<std::string>>());
        breaks.push_back(counts.at("graph_breaks").get<int>());
    }
    std::vector<std::string> onlyOnRank1;
    std::set_difference(ids[1].begin(), ids[1].end(), ids[0].begin(), ids[0].end(), std::back_inserter(onlyOnRank1));
    ASSERT_EQ(onlyOnRank1, std::vector<std::string>{"0/1"});
    ASSERT_NE(breaks[0], breaks[1]);

    std::map<std::string, const RankDivergence*> byWhat;
    for (const RankDivergence& d : divergences) byWhat[d.what] = &d;
    ASSERT_TRUE(byWhat.contains("compile_ids"));
    EXPECT_EQ(byWhat["compile_ids"]->ranks, (std::vector<int>{0, 1}));
    EXPECT_EQ(byWhat["compile_ids"]->detail, "only on rank 1: 0/1");
    ASSERT_TRUE(byWhat.contains("graph_breaks"));
    EXPECT_NE(byWhat["graph_breaks"]->detail.find("(2x vs 1x)"), std::string::npos) << byWhat["graph_breaks"]->detail;
    EXPECT_FALSE(byWhat.contains("cache_outcomes"));  // gloo on CPU with backend eager: no cache lookups at all
    EXPECT_FALSE(byWhat.contains("collective_schedules"));

    Loaded single = load("gpt2_dynamic");
    EXPECT_TRUE(rankDivergence(*single.index, *single.insights).empty());
}

TEST(Insights, JsonObjectsHaveExactlyTheDocumentedFields) {
    using Keys = std::set<std::string>;
    auto keysOf = [](const json& object) {
        Keys keys;
        for (const auto& [key, value] : object.items()) keys.insert(key);
        return keys;
    };
    auto firstCompile = [](const json& report) -> const json& {
        return report.at("sessions")[0].at("compile_sites")[0].at("compiles")[0];
    };
    std::ostringstream cache, shapes;
    writeJsonReport(load("mlp_cache_warm").trace, cache);
    json compile = firstCompile(json::parse(cache.str()));
    ASSERT_EQ(compile.at("caches").size(), 3u);
    EXPECT_EQ(keysOf(compile.at("caches")[0]), (Keys{"cache", "result", "reason", "line"}));
    EXPECT_EQ(compile.at("caches")[0].at("reason"), "full_miss");  // aotautograd, logged first
    EXPECT_TRUE(compile.at("caches")[1].at("reason").is_null());   // fx_graph hit: nothing more to say

    writeJsonReport(load("gpt2_dynamic").trace, shapes);
    json report = json::parse(shapes.str());
    const json& recompile = report.at("sessions")[0].at("compile_sites")[0].at("compiles")[1];
    ASSERT_EQ(recompile.at("key"), "[0/1]");
    EXPECT_EQ(keysOf(recompile.at("symbols")[0]),
              (Keys{"symbol", "event", "source", "value", "range", "user_stack", "line"}));
    EXPECT_EQ(keysOf(recompile.at("guards_added_fast")[0]), (Keys{"expr", "user_stack", "line"}));
    EXPECT_EQ(recompile.at("guards_added_fast")[0].at("expr"), "s50*Max(1, s50 - (Mod(s50, 8)) + 8) > 1");
}

TEST(Insights, JsonReportCarriesEveryInsight) {
    Loaded l = load("ddp_gloo_2ranks");
    std::ostringstream out;
    writeJsonReport(l.trace, out);
    json report = json::parse(out.str());
    ASSERT_EQ(report.at("divergence").size(), 2u);
    EXPECT_EQ(report.at("divergence")[0].at("what"), "compile_ids");
    const json& rank1 = report.at("sessions")[1];
    EXPECT_EQ(rank1.at("failures").size(), 4u);
    EXPECT_EQ(rank1.at("failures")[0].at("kind"), "restarted");
    EXPECT_EQ(rank1.at("failures")[0].at("type"), "Unsupported method call");
    int symbols = 0;
    for (const json& site : rank1.at("compile_sites"))
        for (const json& compile : site.at("compiles")) {
            for (const char* key : {"caches", "symbols", "specializations", "guards_added_fast"})
                EXPECT_TRUE(compile.at(key).is_array()) << key;
            symbols += static_cast<int>(compile.at("symbols").size());
        }
    EXPECT_EQ(symbols, 1);

    std::ostringstream md, html;
    writeMarkdownReport(l.trace, md);
    writeHtmlReport(l.trace, html);
    for (const std::string& text : {md.str(), html.str()}) {
        EXPECT_NE(text.find("Rank divergence"), std::string::npos);
        EXPECT_NE(text.find("Failures and restarts"), std::string::npos);
        EXPECT_NE(text.find("only on rank 1: 0/1"), std::string::npos);
        EXPECT_NE(text.find("s33"), std::string::npos);
    }
}
