#include "session_file.h"

#include "record_codec.h"
#include "record_stream.h"

#include <algorithm>
#include <set>

namespace synaptic::session {

namespace {

bool keepGoing(const SessionFile::Progress &progress, double fraction) { return !progress || progress(fraction); }

// A reader problem's text; a ChunkError's offset is already the problem's.
std::string problemText(const std::exception &e) {
    if (const auto *c = dynamic_cast<const ChunkError *>(&e))
        return c->problem();
    return e.what();
}

double recordTime(const pb::Record &r) {
    switch (r.payload_case()) {
    case pb::Record::kEvent: return r.event().time();
    case pb::Record::kRouting: return r.routing().time();
    case pb::Record::kKeyframe: return r.keyframe().time();
    case pb::Record::kRunStart: return r.run_start().begins_at();
    default: return -1;
    }
}

} // namespace

SessionFile::SessionFile(const std::string &path, const Progress &progress)
    : m_path(path), m_reader(std::make_unique<ChunkReader>(path)) {
    if (const auto at = m_reader->indexOffset()) {
        try {
            const auto recs = parseRecords(m_reader->read(*at).raw);
            if (recs.size() != 1 || !recs[0].has_index())
                throw std::runtime_error("the trailer points at a chunk that is not an index");
            loadIndex(recs[0].index());
            m_indexed = true;
        } catch (const std::exception &e) {
            problem(*at, "footer index unreadable (" + problemText(e) + "); scanned the file instead");
        }
    } else {
        problem(m_reader->fileSize(),
                "no footer index (the writer did not finish: killed or still recording); scanned the file");
    }
    if (!m_indexed)
        scan(progress);
    if (!keepGoing(progress, 1.0))
        throw Cancelled();
}

SessionFile::~SessionFile() = default;

std::uint16_t SessionFile::formatVersion() const { return m_reader->formatVersion(); }
const std::string &SessionFile::metadata() const { return m_reader->metadata(); }
std::uint64_t SessionFile::fileSize() const { return m_reader->fileSize(); }

void SessionFile::problem(std::uint64_t offset, const std::string &what) {
    for (const auto &p : m_problems)
        if (p.offset == offset && p.what == what)
            return;
    m_problems.push_back({offset, what});
}

void SessionFile::loadIndex(const pb::Index &index) {
    for (const auto &start : index.runs()) {
        if (start.run() != int(m_runs.size()))
            throw std::runtime_error("runs out of order in the index");
        RunInfo info;
        info.start = start;
        info.firstTime = info.lastTime = start.begins_at();
        m_runs.push_back(std::move(info));
    }
    for (const auto &end : index.ends())
        if (end.run() >= 0 && end.run() < int(m_runs.size()))
            m_runs[std::size_t(end.run())].end = end;
    for (const auto &e : index.chunks()) {
        if (e.run() < 0 || e.run() >= int(m_runs.size()))
            throw std::runtime_error("a chunk entry names run " + std::to_string(e.run()) + ", which is not there");
        ChunkInfo c{e.offset(), e.run(), e.first_time(), e.last_time(), e.first_event(), e.events(), e.keyframe()};
        if (!m_chunks.empty() && c.offset <= m_chunks.back().offset)
            throw std::runtime_error("chunk entries out of order");
        auto &run = m_runs[std::size_t(c.run)];
        run.firstTime = std::min(run.firstTime, c.firstTime);
        run.lastTime = std::max(run.lastTime, c.lastTime);
        run.events += c.events;
        m_chunks.push_back(c);
    }
}

void SessionFile::scan(const Progress &progress) {
    ChunkFile file = readChunkFile(m_path);
    for (const auto &p : file.problems)
        problem(p.offset, p.what);
    m_chunks.clear();
    m_runs.clear();
    std::vector<std::uint64_t> nextEvent;
    int run = -1;
    for (std::size_t i = 0; i < file.chunks.size(); ++i) {
        if (!keepGoing(progress, double(i) / double(file.chunks.size())))
            throw Cancelled();
        Chunk &chunk = file.chunks[i];
        std::vector<pb::Record> recs;
        try {
            recs = parseRecords(chunk.raw);
        } catch (const std::exception &e) {
            problem(chunk.offset, problemText(e));
            continue;
        }
        if (recs.size() == 1 && recs[0].has_index())
            continue; // a footer without its trailer: the chunks say the same
        ChunkInfo info;
        info.offset = chunk.offset;
        info.firstTime = chunk.firstTime;
        info.lastTime = chunk.lastTime;
        info.keyframe = !recs.empty() && (recs[0].has_keyframe() || recs[0].has_run_start());
        for (const auto &r : recs) {
            if (r.has_run_start()) {
                run = int(m_runs.size());
                RunInfo ri;
                ri.start = r.run_start();
                ri.start.set_run(run);
                ri.firstTime = ri.lastTime = r.run_start().begins_at();
                m_runs.push_back(std::move(ri));
                nextEvent.push_back(0);
            } else if (r.has_run_end() && run >= 0) {
                m_runs[std::size_t(run)].end = r.run_end();
            } else if (r.has_event() && run >= 0) {
                ++info.events;
            }
        }
        if (run < 0) {
            problem(chunk.offset, "chunk before any run start; skipped");
            continue;
        }
        info.run = run;
        info.firstEvent = nextEvent[std::size_t(run)];
        nextEvent[std::size_t(run)] += info.events;
        auto &ri = m_runs[std::size_t(run)];
        ri.firstTime = std::min(ri.firstTime, info.firstTime);
        ri.lastTime = std::max(ri.lastTime, info.lastTime);
        ri.events += info.events;
        m_chunks.push_back(info);
        chunk.raw = std::string(); // read again on demand: a scan must not hold the whole file inflated
    }
}

std::vector<pb::Record> SessionFile::records(const ChunkInfo &info) {
    return parseRecords(m_reader->read(info.offset).raw);
}

RunData SessionFile::readRun(int run, const Progress &progress) {
    if (run < 0 || run >= int(m_runs.size()))
        throw std::out_of_range(m_path + ": no run " + std::to_string(run) + " (the file has " +
                                std::to_string(m_runs.size()) + ")");
    RunData data;
    std::size_t done = 0, total = 0;
    for (const auto &c : m_chunks)
        total += c.run == run;
    for (const auto &c : m_chunks) {
        if (c.run != run)
            continue;
        if (!keepGoing(progress, total ? double(done++) / double(total) : 1.0))
            throw Cancelled();
        std::vector<pb::Record> recs;
        try {
            recs = records(c);
        } catch (const std::exception &e) {
            problem(c.offset, problemText(e));
            continue;
        }
        for (const auto &r : recs) {
            if (r.has_event()) {
                if (auto e = fromProto(r.event()))
                    data.events.push_back(std::move(*e));
            } else if (r.has_routing()) {
                try {
                    data.routing.push_back({r.routing().time(), fromProto(r.routing())});
                } catch (const std::exception &e) {
                    problem(c.offset, problemText(e));
                }
            } else if (r.has_keyframe()) {
                try {
                    data.keyframes.push_back({data.events.size(), SessionState::fromKeyframe(r.keyframe())});
                } catch (const std::exception &e) {
                    problem(c.offset, problemText(e));
                }
            }
        }
    }
    return data;
}

SessionState SessionFile::stateAt(int run, double t) {
    if (run < 0 || run >= int(m_runs.size()))
        throw std::out_of_range(m_path + ": no run " + std::to_string(run));
    std::vector<const ChunkInfo *> chunks;
    for (const auto &c : m_chunks)
        if (c.run == run)
            chunks.push_back(&c);
    // The last keyframe chunk that starts at or before t (chunks are in time order).
    std::size_t from = 0;
    for (std::size_t i = 0; i < chunks.size() && chunks[i]->firstTime <= t; ++i)
        if (chunks[i]->keyframe)
            from = i;
    SessionState state;
    state.time = m_runs[std::size_t(run)].start.begins_at();
    bool started = false;
    for (std::size_t i = from; i < chunks.size(); ++i) {
        std::vector<pb::Record> recs;
        try {
            recs = records(*chunks[i]);
        } catch (const std::exception &e) {
            problem(chunks[i]->offset, problemText(e));
            continue;
        }
        for (const auto &r : recs) {
            if (r.has_keyframe() && !started) {
                state = SessionState::fromKeyframe(r.keyframe());
                started = true;
                continue;
            }
            started = true;
            if (recordTime(r) > t)
                return state;
            if (r.has_event()) {
                if (auto e = fromProto(r.event()))
                    state.apply(*e);
            } else if (r.has_routing()) {
                state.applyRouting(fromProto(r.routing()), r.routing().time());
            }
        }
    }
    return state;
}

std::vector<ReadProblem> SessionFile::verify(const Progress &progress) {
    if (!m_indexed)
        return m_problems; // the scan already read every chunk
    for (std::size_t i = 0; i < m_chunks.size(); ++i) {
        if (!keepGoing(progress, double(i) / double(m_chunks.size())))
            throw Cancelled();
        try {
            for (const auto &r : records(m_chunks[i]))
                if (r.has_routing())
                    fromProto(r.routing());
        } catch (const std::exception &e) {
            problem(m_chunks[i].offset, problemText(e));
        }
    }
    return m_problems;
}

} // namespace synaptic::session
