#include "report_codec.h"

#include "core/session/record_codec.h"

#include <algorithm>
#include <span>
#include <string>
#include <string_view>

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

// A reason becomes a key in the center's ledger and audit trail, so only
// the reasons owners give are taken, each on its own kind (a hostile edge
// could otherwise grow the map at will): a refusal's are the epoch gate's
// verdicts (synapse/lease.cpp verdictName) and the owner's "too_stale";
// a crash's and a rollback's are the owner's (synaptic_owner.cpp).
// tst_report_codec sends each of them.
bool knownReason(const e::LedgerReport &report) {
    if (report.reason.empty())
        return true;
    static constexpr std::string_view refused[] = {"stale_epoch", "expired_lease", "no_lease", "too_stale"};
    static constexpr std::string_view crashed[] = {"owner_crashed"};
    static constexpr std::string_view rolledBack[] = {"merge_not_persisted", "restored_old_state"};
    std::span<const std::string_view> known;
    switch (report.kind) {
    case e::LedgerReport::Kind::Rejected: known = refused; break;
    case e::LedgerReport::Kind::LostInCrash: known = crashed; break;
    case e::LedgerReport::Kind::RolledBack: known = rolledBack; break;
    default: return false; // no other kind has a reason
    }
    return std::find(known.begin(), known.end(), report.reason) != known.end();
}

std::optional<e::NodeReport> refuse(std::string *why, const std::string &what) {
    if (why)
        *why = what;
    return std::nullopt;
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

std::optional<e::NodeReport> fromProto(const v1::NodeReport &report, std::string *why) {
    switch (report.report_case()) {
    case v1::NodeReport::kStep:
        return e::StepReport{report.step().samples()};
    case v1::NodeReport::kLedger: {
        const auto &p = report.ledger();
        e::LedgerReport l{e::LedgerReport::Kind(p.kind()), p.shard(), p.count(), {p.ids().begin(), p.ids().end()},
                          p.reason()};
        if (!knownKind(l.kind))
            return refuse(why, "ledger report of an unknown kind");
        if (!knownReason(l))
            return refuse(why, "ledger report with an unknown reason");
        if (l.kind == e::LedgerReport::Kind::Applied && l.shard < 0)
            return refuse(why, "ledger report applied to no shard");
        return l;
    }
    case v1::NodeReport::kRoute: {
        const auto &p = report.route();
        const auto kind = e::RouteReport::Kind(p.kind());
        if (!knownKind(kind))
            return refuse(why, "route report of an unknown kind");
        return e::RouteReport{kind, p.shard(), p.region(), p.edge(), p.version(), p.value(), p.checksum()};
    }
    case v1::NodeReport::kEvent: {
        auto ev = session::fromProto(report.event());
        if (!ev)
            return refuse(why, "event report that does not decode");
        return e::NodeReport{std::move(*ev)};
    }
    default:
        return refuse(why, "report of no known kind");
    }
}

} // namespace synaptic::rpc
