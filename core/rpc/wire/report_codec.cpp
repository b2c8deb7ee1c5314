#include "report_codec.h"

#include "core/session/record_codec.h"

namespace synaptic::rpc {

namespace e = synaptic::engine;

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
    } else if (const auto *r = std::get_if<e::RouteReport>(&report)) {
        auto *p = out.mutable_route();
        p->set_kind(int(r->kind));
        p->set_shard(r->shard);
        p->set_region(r->region);
        p->set_edge(r->edge);
        p->set_version(r->version);
        p->set_value(r->value);
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
        if (p.kind() < 0 || p.kind() > int(e::LedgerReport::Kind::SentWhileReadOnly))
            return std::nullopt;
        if (p.kind() == int(e::LedgerReport::Kind::Applied) && p.shard() < 0)
            return std::nullopt;
        return e::LedgerReport{e::LedgerReport::Kind(p.kind()), p.shard(), p.count(), {p.ids().begin(), p.ids().end()}};
    }
    case v1::NodeReport::kRoute: {
        const auto &p = report.route();
        if (p.kind() < 0 || p.kind() > int(e::RouteReport::Kind::ParameterDrift))
            return std::nullopt;
        return e::RouteReport{e::RouteReport::Kind(p.kind()), p.shard(), p.region(), p.edge(), p.version(), p.value()};
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
