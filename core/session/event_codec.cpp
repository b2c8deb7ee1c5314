#include "event_codec.h"

#include "events.pb.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <stdexcept>

namespace synaptic::session {

namespace {

pb::TrainProgress progressToProto(const engine::TrainProgress &p) {
    pb::TrainProgress m;
    m.set_kind(static_cast<pb::TrainProgress::Kind>(p.kind));
    m.set_epoch(p.epoch);
    m.set_epochs(p.epochs);
    m.set_step(p.step);
    m.set_total_steps(p.totalSteps);
    m.set_samples_seen(p.samplesSeen);
    m.set_loss(p.loss);
    m.set_exit_loss(p.exitLoss);
    m.set_samples_per_second(p.samplesPerSecond);
    m.set_train_seconds(p.trainSeconds);
    m.set_eta_seconds(p.etaSeconds);
    m.set_test_accuracy(p.testAccuracy);
    m.set_exit_test_accuracy(p.exitTestAccuracy);
    return m;
}

engine::TrainProgress progressFromProto(const pb::TrainProgress &m) {
    engine::TrainProgress p;
    p.kind = static_cast<engine::TrainProgress::Kind>(m.kind());
    p.epoch = m.epoch();
    p.epochs = m.epochs();
    p.step = m.step();
    p.totalSteps = m.total_steps();
    p.samplesSeen = m.samples_seen();
    p.loss = m.loss();
    p.exitLoss = m.exit_loss();
    p.samplesPerSecond = m.samples_per_second();
    p.trainSeconds = m.train_seconds();
    p.etaSeconds = m.eta_seconds();
    p.testAccuracy = m.test_accuracy();
    p.exitTestAccuracy = m.exit_test_accuracy();
    return p;
}

} // namespace

bool writeDelimited(std::ostream &out, const TimedProgress &event) {
    pb::Event m;
    m.set_time(event.time);
    *m.mutable_train_progress() = progressToProto(event.progress);
    return google::protobuf::util::SerializeDelimitedToOstream(m, &out) && out.good();
}

struct EventReader::Impl {
    explicit Impl(std::istream &in) : stream(&in) {}
    google::protobuf::io::IstreamInputStream stream;
    long long index = 0;
};

EventReader::EventReader(std::istream &in) : m_impl(std::make_unique<Impl>(in)) {}
EventReader::~EventReader() = default;

std::optional<TimedProgress> EventReader::next() {
    pb::Event m;
    bool cleanEof = false;
    const long long index = m_impl->index++;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&m, &m_impl->stream, &cleanEof)) {
        if (cleanEof)
            return std::nullopt;
        throw std::runtime_error("session event " + std::to_string(index) + ": truncated or malformed");
    }
    if (!m.has_train_progress())
        throw std::runtime_error("session event " + std::to_string(index) + ": no known payload");
    return TimedProgress{m.time(), progressFromProto(m.train_progress())};
}

} // namespace synaptic::session
