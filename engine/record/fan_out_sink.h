// Hands every compile event to several sinks in turn (`cwb run --trace ... --stats ...` records to both).
#pragma once

#include <string>
#include <vector>

#include "capture/compile_events.h"

namespace eng::record {

class FanOutSink : public capture::CompileEventSink {
public:
    /// The sinks are not owned and must outlive this one; they receive each event in the order given.
    explicit FanOutSink(std::vector<capture::CompileEventSink*> sinks) : sinks_(std::move(sinks)) {}

    void compileStarted(const traces::Compile& compile, const traces::Stack& userStack) override {
        for (auto* sink : sinks_) sink->compileStarted(compile, userStack);
    }
    void recompileReasons(const traces::CompileKey& key, const std::vector<traces::GuardFailure>& failures) override {
        for (auto* sink : sinks_) sink->recompileReasons(key, failures);
    }
    void graphCaptured(const traces::CompileKey& key, const traces::Graph& graph) override {
        for (auto* sink : sinks_) sink->graphCaptured(key, graph);
    }
    void guardsInstalled(const traces::CompileKey& key, const std::vector<traces::Guard>& guards) override {
        for (auto* sink : sinks_) sink->guardsInstalled(key, guards);
    }
    void graphBreak(const traces::CompileKey& key, const traces::GraphBreak& graphBreak) override {
        for (auto* sink : sinks_) sink->graphBreak(key, graphBreak);
    }
    void outputCode(const traces::CompileKey& key, const traces::OutputCode& code) override {
        for (auto* sink : sinks_) sink->outputCode(key, code);
    }
    void cacheLookup(const traces::CompileKey& key, const std::string& artifactName, const std::string& payload) override {
        for (auto* sink : sinks_) sink->cacheLookup(key, artifactName, payload);
    }
    void warning(const traces::CompileKey& key, const std::string& text) override {
        for (auto* sink : sinks_) sink->warning(key, text);
    }
    void compileFinished(const traces::Compile& compile) override {
        for (auto* sink : sinks_) sink->compileFinished(compile);
    }

private:
    std::vector<capture::CompileEventSink*> sinks_;
};

}  // namespace eng::record
