#include "report_codec.h"

#include "core/session/record_codec.h"

#include <string>

namespace synaptic::rpc {

namespace e = synaptic::engine;

namespace {

// Every kind this build folds. No default label: -Wswitch names a kind added
// to the engine and forgotten here (a bound on the last kind once dropped
// five kinds at the center without a word).
bool knownKind(e::LedgerReport::Kind kind) {
    using K = e::LedgerReport::Kind;
    switch (kind) {
    case K::Sent:
    case K::Applied:
    case K::Rejected:
    case K::Forwarded:
    case K::LostInCrash:
    case K::AppliedUnderExpiredLease:
    case K::SentWhileReadOnly:
    case K::RolledBack:
    case K::MergesLost:
    case K::StateWritten:
    case K::CenterResent:
    case K::CenterResentMerged:
        return true;
    }
    return false;
}

bool knownKind(e::RouteReport::Kind kind) {
    using K = e::RouteReport::Kind;
    switch (kind) {
    case K::OwnerVersion:
    case K::CachedVersion:
    case K::Owner:
    case K::CenterVersion:
    case K::ParameterDrift:
        return true;
    }
    return false;
}

// A refusal's reason becomes a key in the center's ledger: a short
// identifier ("stale_epoch"), or a hostile edge could grow the map at will.
constexpr std::size_t kMaxReasonLength = 32;

bool plausibleReason(const std::string &reason) {
    if (reason.size() > kMaxReasonLength)
        return false;
    for (const char c : reason)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    return true;
}

} // namespace

v1::NodeReport toProto(const e::NodeReport &report, double time) {
    v1::NodeReport out;
    out.set_time(time);
    if (const auto *s = std::get_if<e::StepReport>(&report)) {
        out.mutable_step()->set_samples(s->samples);
    } else if (const auto *l = std::get_if<e::LedgerReport>(&report)) {
        auto *p = out.mutable_ledger();
        p->set_kind(int(l->kind));
        p->set_shard(l->shard);
        p->set_count(l->count);
        p->mutable_ids()->Add(l->ids.begin(), l->ids.end());
        p->set_reason(l->reason);
    } else if (const auto *r = std::get_if<e::RouteReport>(&report)) {
        auto *p = out.mutable_route();
        p->set_kind(int(r->kind));
        p->set_shard(r->shard);
        p->set_region(r->region);
        p->set_edge(r->edge);
        p->set_version(r->version);
        p->set_value(r->value);
        p->set_checksum(r->checksum);
    } else if (const auto *ev = std::get_if<e::SimEvent>(&report)) {
        *out.mutable_event() = session::toProto(*ev);
    }
    return out;
}

std::optional<e::NodeReport> fromProto(const v1::NodeReport &report) {
    switch (report.report_case()) {
    case v1::NodeReport::kStep:
        return e::StepReport{report.step().samples()};
    case v1::NodeReport::kLedger: {
        const auto &p = report.ledger();
        const auto kind = e::LedgerReport::Kind(p.kind());
        if (!knownKind(kind) || !plausibleReason(p.reason()))
            return std::nullopt;
        if (kind == e::LedgerReport::Kind::Applied && p.shard() < 0)
            return std::nullopt;
        return e::LedgerReport{kind, p.shard(), p.count(), {p.ids().begin(), p.ids().end()}, p.reason()};
    }
    case v1::NodeReport::kRoute: {
        const auto &p = report.route();
        const auto kind = e::RouteReport::Kind(p.kind());
        if (!knownKind(kind))
            return std::nullopt;
        return e::RouteReport{kind, p.shard(), p.region(), p.edge(), p.version(), p.value(), p.checksum()};
    }
    case v1::NodeReport::kEvent: {
        auto ev = session::fromProto(report.event());
        if (!ev)
            return std::nullopt;
        return e::NodeReport{std::move(*ev)};
    }
    default:
        return std::nullopt;
    }
}

} // namespace synaptic::rpc
