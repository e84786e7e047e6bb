// The read-ahead thread of the importer (see read_ahead.h): a ring of record slots filled in place by the
// reading thread and handed back by the importer, so that no record is copied or moved between threads.
#include "importers/torch_trace/read_ahead.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "store/md5.h"

namespace traces {
namespace {

// Slots in the ring, and the payload bytes the reader may hold ahead of the importer (one record more when a
// single payload is larger), so that memory stays flat whatever the log's size.
constexpr size_t kSlots = 32;
constexpr size_t kMaxBytesAhead = 16u << 20;
constexpr size_t kLargePayload = 256u << 10;

}  // namespace

struct ReadAheadRecords::State {
    LogRecordReader reader;
    std::vector<ReadRecord> slots = std::vector<ReadRecord>(kSlots);
    std::vector<size_t> slotBytes = std::vector<size_t>(kSlots);  // as counted when read (the importer moves payloads out)
    std::vector<LogProblem> collecting;  // problems the reader reports until its record is complete
    std::vector<LogProblem> trailing;

    std::mutex mutex;
    std::condition_variable changed;
    std::deque<size_t> ready;  // filled slots, in file order
    std::deque<size_t> free;
    size_t bytesAhead = 0;
    bool finished = false;
    bool stopping = false;
    std::exception_ptr failure;
    int64_t current = -1;  // the slot the importer holds
    std::thread thread;

    State(const std::string& path, LogByteRange range)
        : reader(path, [this](LogProblem p) { collecting.push_back(std::move(p)); }, range) {
        for (size_t i = 0; i < kSlots; ++i) free.push_back(i);
        thread = std::thread([this] {
            pthread_setname_np(pthread_self(), "cwb-log-reader");
            readLoop();
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

    void readLoop() {
        try {
            for (;;) {
                size_t slot = 0;
                {
                    std::unique_lock lock(mutex);
                    changed.wait(lock, [&] { return stopping || (!free.empty() && (bytesAhead < kMaxBytesAhead || ready.empty())); });
                    if (stopping) return;
                    slot = free.front();
                    free.pop_front();
                }
                ReadRecord& r = slots[slot];
                bool more = reader.next(r.record);
                if (more) {
                    r.payloadMd5 = r.record.payloadLines > 0 ? md5Hex(r.record.payload) : std::string();
                    r.problems.swap(collecting);
                    collecting.clear();
                    r.bytesRead = reader.bytesRead();
                }
                {
                    std::lock_guard lock(mutex);
                    if (more) {
                        slotBytes[slot] = r.record.payload.size() + r.record.headerText.size();
                        bytesAhead += slotBytes[slot];
                        ready.push_back(slot);
                    } else {
                        free.push_back(slot);
                        trailing.swap(collecting);
                        finished = true;
                    }
                }
                changed.notify_all();
                if (!more) return;
            }
        } catch (...) {
            {
                std::lock_guard lock(mutex);
                failure = std::current_exception();
                finished = true;
            }
            changed.notify_all();
        }
    }
};

ReadAheadRecords::ReadAheadRecords(const std::string& path, LogByteRange range)
    : state_(std::make_unique<State>(path, range)) {}

ReadAheadRecords::~ReadAheadRecords() = default;

ReadRecord* ReadAheadRecords::next() {
    State& s = *state_;
    std::unique_lock lock(s.mutex);
    if (s.current >= 0) {
        size_t done = static_cast<size_t>(s.current);
        s.bytesAhead -= s.slotBytes[done];
        // A slot keeps its strings' capacity for the next record; one that held a large payload gives it back,
        // or every slot would come to hold the largest payload seen.
        std::string& payload = s.slots[done].record.payload;
        if (payload.capacity() > kLargePayload) std::string().swap(payload);
        s.free.push_back(done);
        s.current = -1;
        s.changed.notify_all();
    }
    s.changed.wait(lock, [&] { return !s.ready.empty() || s.finished; });
    if (s.ready.empty()) {
        if (s.failure) std::rethrow_exception(s.failure);
        return nullptr;
    }
    s.current = static_cast<int64_t>(s.ready.front());
    s.ready.pop_front();
    return &s.slots[static_cast<size_t>(s.current)];
}

std::vector<LogProblem>& ReadAheadRecords::trailingProblems() { return state_->trailing; }

uint64_t ReadAheadRecords::fileSize() const { return state_->reader.fileSize(); }

uint64_t ReadAheadRecords::bytesRead() const {
    std::lock_guard lock(state_->mutex);
    return state_->finished ? state_->reader.bytesRead() : 0;
}

int64_t ReadAheadRecords::linesRead() const {
    std::lock_guard lock(state_->mutex);
    return state_->finished ? state_->reader.linesRead() : 0;
}

}  // namespace traces
