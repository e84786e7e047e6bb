// GraphParseAhead (see graph_parse_ahead.h): a queue of graphs, one parsing thread, results handed back in order.
#include "importers/torch_trace/graph_parse_ahead.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "parse/fx_graph_text.h"
#include "store/json_columns.h"

namespace traces {
namespace {

// Text queued beyond this makes the importer wait for the oldest parse (a few large graphs of a real log).
constexpr size_t kMaxQueuedBytes = 16u << 20;

}  // namespace

struct GraphParseAhead::State {
    struct Item {
        Graph graph;
        std::string nodesJson;
        bool tooLarge = false;
        bool parsed = false;
        std::exception_ptr failure;
    };
    size_t maxNodes;
    bool encodeNodes;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::unique_ptr<Item>> items;  // oldest first; the parser works through them in order
    size_t unparsed = 0;                      // the last `unparsed` items wait for the parser
    size_t queuedBytes = 0;
    bool stopping = false;
    std::thread thread;

    State(size_t limit, bool encode) : maxNodes(limit), encodeNodes(encode) {
        thread = std::thread([this] {
            pthread_setname_np(pthread_self(), "cwb-fx-parser");
            parseLoop();
        });
    }

    ~State() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        changed.notify_all();
        thread.join();
    }

    void parseLoop() {
        std::unique_lock lock(mutex);
        for (;;) {
            changed.wait(lock, [&] { return unparsed > 0 || stopping; });
            if (stopping) return;
            Item& item = *items[items.size() - unparsed];
            lock.unlock();
            try {
                item.graph.nodes = parseFxGraphText(item.graph.text, maxNodes, &item.tooLarge);
                if (encodeNodes) {
                    item.nodesJson = graphNodesToJson(item.graph.nodes);
                    std::vector<GraphNode>().swap(item.graph.nodes);  // freed by the thread that allocated them
                }
            } catch (...) {
                item.failure = std::current_exception();
            }
            lock.lock();
            item.parsed = true;
            --unparsed;
            changed.notify_all();
        }
    }
};

GraphParseAhead::GraphParseAhead(size_t maxNodes, bool encodeNodes)
    : state_(std::make_unique<State>(maxNodes, encodeNodes)) {}

GraphParseAhead::~GraphParseAhead() = default;

void GraphParseAhead::push(Graph&& graph, const Done& done) {
    {
        std::lock_guard lock(state_->mutex);
        state_->queuedBytes += graph.text.size();
        auto item = std::make_unique<State::Item>();
        item->graph = std::move(graph);
        state_->items.push_back(std::move(item));
        ++state_->unparsed;
    }
    state_->changed.notify_all();
    handBack(false, kMaxQueuedBytes, done);
}

void GraphParseAhead::drain(const Done& done) { handBack(true, 0, done); }

bool GraphParseAhead::encodesNodes() const { return state_->encodeNodes; }

void GraphParseAhead::handBack(bool waitForAll, size_t maxQueuedBytes, const Done& done) {
    for (;;) {
        std::unique_ptr<State::Item> item;
        {
            std::unique_lock lock(state_->mutex);
            if (state_->items.empty()) return;
            State::Item* front = state_->items.front().get();
            if (!front->parsed) {
                if (!waitForAll && state_->queuedBytes <= maxQueuedBytes) return;
                state_->changed.wait(lock, [&] { return front->parsed; });
            }
            item = std::move(state_->items.front());
            state_->items.pop_front();
            state_->queuedBytes -= item->graph.text.size();
        }
        if (item->failure) std::rethrow_exception(item->failure);
        done(std::move(item->graph), std::move(item->nodesJson), item->tooLarge);
    }
}

}  // namespace traces
