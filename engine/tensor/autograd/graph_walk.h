// The order of a backward pass, written once: count each node's dependencies, then run a node once all its
// gradients have arrived (latest-created first among the ready ones, like PyTorch's ready queue). The eager engine
// walks it with tensors; compiled autograd walks it with graph values to capture the same pass as one graph.
#pragma once

#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tensor/autograd/node.h"

namespace eng::tensor::autograd {

/// Whether a gradient arrived (an undefined tensor, a null graph value: none did).
inline bool gradientPresent(const Tensor& t) { return t.defined(); }
template <typename T>
bool gradientPresent(T* value) {
    return value != nullptr;
}

/// Whether any of a node's output gradients arrived: a node that got none does not run.
template <typename Grad>
bool anyGradientPresent(const std::vector<Grad>& grads) {
    for (const Grad& g : grads)
        if (gradientPresent(g)) return true;
    return false;
}

/// Walks the nodes reachable from `rootEdges` in the engine's order. `run(node, grads)` is called for each node that
/// got at least one gradient, with one per node output (absent where none arrived), and returns one per next edge
/// (absent: none flows there); gradients arriving
/// at the same node output are combined with `add(a, b)`. Raw node pointers are safe: the roots' edges keep the
/// graph alive during the walk.
template <typename Grad, typename Run, typename Add>
void walkBackward(const std::vector<Edge>& rootEdges, const std::vector<Grad>& rootGrads, Run&& run, Add&& add) {
    std::unordered_map<Node*, int64_t> dependencies;
    std::unordered_set<Node*> seen;
    std::vector<Node*> stack;
    for (const Edge& e : rootEdges)
        if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
    while (!stack.empty()) {
        Node* node = stack.back();
        stack.pop_back();
        for (const Edge& next : node->nextEdges()) {
            if (!next.valid()) continue;
            ++dependencies[next.node.get()];
            if (seen.insert(next.node.get()).second) stack.push_back(next.node.get());
        }
    }

    std::unordered_map<Node*, std::vector<Grad>> buffers;
    auto addToBuffer = [&](Node* node, uint32_t inputNr, const Grad& grad) {
        std::vector<Grad>& buffer = buffers[node];
        if (buffer.size() < node->outputGeometry().size()) buffer.resize(node->outputGeometry().size());
        Grad& slot = buffer.at(inputNr);
        slot = gradientPresent(slot) ? add(slot, grad) : grad;
    };
    struct ReadyOrder {
        bool operator()(const Node* a, const Node* b) const { return a->sequenceNr() < b->sequenceNr(); }
    };
    std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
    for (size_t i = 0; i < rootEdges.size(); ++i) addToBuffer(rootEdges[i].node.get(), rootEdges[i].inputNr, rootGrads[i]);
    for (const Edge& e : rootEdges) {
        Node* node = e.node.get();
        if (dependencies[node] == 0 && seen.erase(node)) ready.push(node);
    }

    while (!ready.empty()) {
        Node* node = ready.top();
        ready.pop();
        std::vector<Grad> grads = std::move(buffers[node]);
        buffers.erase(node);
        grads.resize(node->outputGeometry().size());
        const std::vector<Grad> inputGrads = anyGradientPresent(grads) ? run(*node, grads) : std::vector<Grad>{};
        const std::vector<Edge>& next = node->nextEdges();
        for (size_t i = 0; i < next.size(); ++i) {
            if (!next[i].valid()) continue;
            Node* target = next[i].node.get();
            if (i < inputGrads.size() && gradientPresent(inputGrads[i])) addToBuffer(target, next[i].inputNr, inputGrads[i]);
            if (--dependencies[target] == 0) ready.push(target);
        }
    }
}

}  // namespace eng::tensor::autograd
