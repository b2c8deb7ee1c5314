#include "synaptic_edge.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace synaptic::engine {

namespace {
std::vector<std::int64_t> shardSizes(const ShardPlan &plan) {
    std::vector<std::int64_t> sizes;
    for (const auto &s : plan.shards)
        sizes.push_back(s.parameters);
    return sizes;
}
// How long an edge waits for every owner's catch-up answer.
constexpr double kCatchUpSeconds = 1.0;
// How long a restarted edge keeps asking for shards it holds no values of:
// past an owner's own recovery (kRecoverySeconds in synaptic_owner.cpp, 2 s)
// and one more ask. An owner silent that long is down: the edge trains
// rather than idling until it is back, but pushes none of its shards
// (finishStep) and asks for them once a second until it holds them.
constexpr double kLostValuesWaitSeconds = 3.0;
// An owner whose answers take this many times the region's median (and at
// least kSlowOwnerMarginSeconds more) is slow: not waited for.
constexpr double kSlowOwnerFactor = 3.0;
constexpr double kSlowOwnerMarginSeconds = 0.010;
// How long the close times of windows are kept to time their answers.
constexpr double kWindowsTimedSeconds = 4.0;
// How long a slow owner's shards are held back for its unanswered window.
constexpr double kHoldForSlowOwnerSeconds = 1.0;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

const char *modeName(EdgeLeaseState::Mode m) {
    switch (m) {
    case EdgeLeaseState::Mode::ReadOnly: return "read_only";
    case EdgeLeaseState::Mode::CatchingUp: return "catching_up";
    case EdgeLeaseState::Mode::Training: return "training";
    }
    return "?";
}
} // namespace

SynapticEdge::SynapticEdge(const NodeContext &ctx)
    : SimNode(ctx.node), m_ctx(ctx), m_edge(ctx.edge()), m_region(ctx.region()), m_owners(ctx.owners),
      m_replica(ctx.newReplica()), m_cache(shardSizes(ctx.model->plan)),
      m_holdsValues(ctx.model->plan.shards.size(), true), m_owner(ctx, &m_replica->model(), [this] { return m_stepsPushed; }),
      m_hub(makeHub(ctx, m_hubContext)), m_localUpdates(ctx.config->localUpdatesAt(ctx.edge())) {}

double SynapticEdge::stepSeconds() const {
    return m_ctx.realTime ? m_replica->meanStepWallSeconds() : m_ctx.trainStepSeconds();
}

bool SynapticEdge::holdsValuesOf(int node) const {
    for (std::size_t s = 0; s < m_owners.size(); ++s)
        if (ownerNode(int(s)) == node && !m_holdsValues[s])
            return false;
    return true;
}

bool SynapticEdge::holdsEveryShard() const {
    return std::all_of(m_holdsValues.begin(), m_holdsValues.end(), [](bool held) { return held; });
}

void SynapticEdge::forgetValues(double now, double hubWrittenAt, Outbox &out) {
    // In the simulator the replica outlives a kill; a real process's does
    // not. A live edge restarted over its state file starts here too, its
    // replica at the center's global copy (the join reply), which its
    // region's owners are past: its cached versions are 0. The simulator
    // has no join reply: it goes back to the starting values, harsher than
    // live. Batch-norm statistics stay: the owner reports them to the
    // center, which would average starting ones in.
    if (!m_ctx.realTime)
        m_replica->model().setValues(m_ctx.model->initialValues);
    m_local.reset();
    for (std::size_t s = 0; s < m_holdsValues.size(); ++s) {
        m_cache.setCachedVersion(int(s), 0, true);
        m_holdsValues[s] = false;
    }
    AuditEvent restarted; // for the audit: what the edge cached before died with the memory
    restarted.time = now;
    restarted.kind = AuditEvent::Kind::Restore;
    restarted.node = m_ctx.node;
    restarted.writtenAt = hubWrittenAt; // and its hub's merges after its state was written
    out.report(SimEvent{restarted});
}

std::set<int> SynapticEdge::ownerNodes() const {
    std::set<int> nodes;
    for (int e : m_owners)
        nodes.insert(ClusterShape::nodeOfEdge(e));
    return nodes;
}

void SynapticEdge::sendHeartbeat(double now, bool join, Outbox &out) {
    Message hb;
    hb.kind = MessageKind::Heartbeat;
    hb.to = kCenterNode;
    hb.lease = m_granted;
    hb.writtenAt = leaseClock(now); // by this edge's clock: the grant answers in the same terms
    m_heartbeatSentAt = hb.writtenAt;
    hb.join = join;
    out.send(hb);
}

void SynapticEdge::revive(double now, bool fromOldState, Outbox &out) {
    if (crashed())
        restartFromState(now, fromOldState, out);
    start(now, out);
}

void SynapticEdge::restartFromState(double now, bool fromOldState, Outbox &out) {
    // Each role reloads its own state file. A hub with none to reload
    // (killed without a store) forgot no merge: its record says `now`.
    double hubWrittenAt = m_hub ? now : 0;
    if (m_hub && m_hub->crashed())
        runHub(
            [&](SynapticCenter &hub, Outbox &o) {
                hub.restoreAfterCrash(now, fromOldState, o);
                hubWrittenAt = hub.writtenAt();
            },
            out);
    forgetValues(now, hubWrittenAt, out); // a new process: its replica holds no owner's current values
    if (m_owner.crashed())
        m_owner.restoreAfterCrash(now, out, fromOldState);
    else
        m_owner.writeInitialState(out);
}

void SynapticEdge::start(double now, Outbox &out) {
    // First start, or a revive: no lease until the center answers, and the
    // answer to a join carries the region's current owners. A process
    // started over an existing state file reloads it first.
    if (crashed())
        restartFromState(now, false, out);
    else
        m_owner.writeInitialState(out);
    m_lease = EdgeLeaseState{};
    m_granted = Lease{};
    m_renewingEarly = false;
    m_left = false;
    sendHeartbeat(now, true, out);
    out.timer(now + m_ctx.config->knobs.heartbeatSeconds, kHeartbeat);
    if (m_hub)
        runHub([now](SynapticCenter &hub, Outbox &o) { hub.start(now, o); }, out);
}

void SynapticEdge::onKilled(double now, Outbox &out) {
    m_stepRunning = false;
    m_pendingValues.clear();
    m_awaitingCatchUp.clear();
    m_awaitingOwners.clear();
    m_catchUpAsked.clear();
    m_gradientFeedback.clear(); // residuals live in memory: a crash loses them
    m_answerSeconds.clear();
    m_windowClosedAt.clear();
    m_lastTimedWindow.clear();
    m_unanswered.clear();
    m_owner.onKilled(out);
    if (m_hub)
        runHub([now](SynapticCenter &hub, Outbox &o) { hub.onKilled(now, o); }, out);
    if (!keepsWindowsAheadByFault())
        dropOpenWindow(); // unsent window gradients die with the process
    m_local.reset(); // and so does the edge's own optimizer (local updates), as in a live process
    m_lease = EdgeLeaseState{};
    m_granted = Lease{};
    out.report(LeaseEvent{now, m_edge, "down", 0});
}

void SynapticEdge::setMode(double now, EdgeLeaseState::Mode before, Outbox &out) {
    const auto mode = m_lease.mode();
    if (mode == before)
        return;
    // Read-only at once: what the cache holds is never pushed. Nor, on a new
    // epoch straight from training, are windows kept open under the old one
    // (as a step's gradient is not: finishStep).
    if (!keepsWindowsAheadByFault() &&
        (mode == EdgeLeaseState::Mode::ReadOnly || (mode == EdgeLeaseState::Mode::CatchingUp && m_windowsAhead > 0)))
        dropOpenWindow();
    out.report(LeaseEvent{now, m_edge, modeName(mode), m_lease.lease().epoch});
}

void SynapticEdge::onMessage(double now, Message &&m, Outbox &out) {
    const bool leaseValid = m_lease.lease().validAt(leaseClock(now));
    if (forHub(m)) {
        runHub([now, &m](SynapticCenter &hub, Outbox &o) { hub.onMessage(now, std::move(m), o); }, out);
        return;
    }
    switch (m.kind) {
    case MessageKind::LeaseGrant: onLease(now, m, out); break;
    case MessageKind::Gradients:
        m_owner.onGradients(now, std::move(m), leaseValid, m_ctx.windowSeconds(stepSeconds()), out);
        break;
    case MessageKind::CatchUpRequest: m_owner.onCatchUpRequest(now, m, out); break;
    case MessageKind::CenterValues: m_owner.onCenterValues(now, std::move(m), out); break;
    case MessageKind::Handoff:
        for (int shard : m_owner.onHandoff(now, std::move(m), out))
            m_owners[std::size_t(shard)] = m_edge;
        break;
    case MessageKind::OwnerAnnounce:
        // A move's new owner announces itself to its region: send there from now on.
        for (const auto &item : m.shards)
            if (item.shard >= 0 && std::size_t(item.shard) < m_owners.size() && m.origin >= 0 &&
                m.origin < m_ctx.shape->edgeCount() && m_ctx.shape->regionOfEdge[std::size_t(m.origin)] == m_region)
                m_owners[std::size_t(item.shard)] = m.origin;
        break;
    case MessageKind::Values:
        noteAnswer(now, m);
        if (const auto u = m_unanswered.find(m.from); u != m_unanswered.end() && m.round >= u->second)
            m_unanswered.erase(u);
        if (m_lease.mode() == EdgeLeaseState::Mode::CatchingUp && m_awaitingCatchUp.count(m.from) &&
            answersCatchUp(m)) {
            applyValues(now, m, out);
            m_awaitingCatchUp.erase(m.from);
            // Every owner answered, and the replica holds every shard (else
            // the timeout asks again: a restarted edge and a move in flight).
            if (m_awaitingCatchUp.empty() && (holdsEveryShard() || m_ctx.faults.breakCatchUpWaitsForLostShards)) {
                const auto before = m_lease.mode();
                m_lease.onCaughtUp(leaseClock(now));
                setMode(now, before, out);
                startStepIfAllowed(now, out);
            }
        } else if (m_stepRunning) {
            m_pendingValues.push_back(std::move(m));
        } else {
            applyValues(now, m, out);
            m_unresponsiveOwners.erase(m.from);
            // Only the owner's answer to this edge's last window lets it
            // train on (values a center sync brought do not include it).
            if (answersWindow(m) && m_awaitingOwners.erase(m.from) && m_awaitingOwners.empty()) {
                closeWindowIfDue(now, out);
                startStepIfAllowed(now, out);
            }
        }
        break;
    default: break;
    }
}

void SynapticEdge::onTimer(double now, int kind, std::uint64_t arg, Outbox &out) {
    if (kind >= kHubTimerBase) {
        if (m_hub)
            runHub([now, kind, arg](SynapticCenter &hub, Outbox &o) { hub.onTimer(now, kind - kHubTimerBase, arg, o); },
                   out);
        return;
    }
    switch (kind) {
    case kStepDone: finishStep(now, out); break;
    case kHeartbeat:
        if (m_left)
            break; // gave its lease back: a heartbeat now would take a new one
        sendHeartbeat(now, false, out);
        out.timer(now + m_ctx.config->knobs.heartbeatSeconds, kHeartbeat);
        break;
    case kLeaseExpiry: {
        const auto before = m_lease.mode();
        m_lease.tick(leaseClock(now));
        setMode(now, before, out);
        break;
    }
    case kCatchUpTimeout:
        // An owner that cannot answer (down, cut off) must not keep this edge
        // from training forever: its shards stay as cached until it is back.
        // Unless the edge holds no values of them (it restarted): it asks
        // their owners again, for up to kLostValuesWaitSeconds. Its own
        // node's owner among them, which answers once it recovered its
        // state; and an owner that answered without a shard the edge's map
        // gives it (a move in flight: the new owner may not hold it yet).
        if (m_lease.mode() == EdgeLeaseState::Mode::CatchingUp && arg == m_catchUpAsks) {
            std::set<int> askAgain;
            if (now < m_catchUpGiveUpAt && !m_ctx.faults.breakCatchUpWaitsForLostShards)
                for (int node : ownerNodes())
                    if (!holdsValuesOf(node))
                        askAgain.insert(node);
            for (int node : m_awaitingCatchUp)
                if (!askAgain.count(node))
                    m_unresponsiveOwners.insert(node);
            m_awaitingCatchUp = askAgain;
            if (!askAgain.empty()) {
                out.timer(std::min(now + kCatchUpSeconds, m_catchUpGiveUpAt), kCatchUpTimeout, m_catchUpAsks);
                for (int node : askAgain)
                    out.send(catchUpRequest(node, m_catchUpAskedAt)); // still the same ask, after the grant
                break;
            }
            const auto before = m_lease.mode();
            m_lease.onCaughtUp(leaseClock(now));
            setMode(now, before, out);
            startStepIfAllowed(now, out);
        }
        break;
    case kValuesTimeout:
        if (arg == m_window && !m_awaitingOwners.empty()) {
            // Stop waiting for owners that did not answer (down, or cut
            // off) until they are heard from again.
            m_unresponsiveOwners.insert(m_awaitingOwners.begin(), m_awaitingOwners.end());
            m_awaitingOwners.clear();
            if (!m_stepRunning)
                closeWindowIfDue(now, out);
            startStepIfAllowed(now, out);
        }
        break;
    case SynapticOwner::kMergeDeadlineTimer:
        m_owner.onMergeDeadline(now, arg, m_lease.lease().validAt(leaseClock(now)), out);
        break;
    case SynapticOwner::kRecoveryTimer: m_owner.onRecoveryDeadline(now, out); break;
    case SynapticOwner::kSyncResendTimer: m_owner.onSyncResendTimer(now, out); break;
    default: break;
    }
}

void SynapticEdge::onLease(double now, const Message &grant, Outbox &out) {
    if (grant.owners.size() == m_owners.size())
        m_owners = grant.owners; // the answer to a join: the region's owners as the center knows them
    const auto before = m_lease.mode();
    const auto epochBefore = m_lease.lease().epoch;
    if (grant.lease.epoch > m_granted.epoch)
        m_granted = grant.lease;
    else if (grant.lease.epoch == m_granted.epoch)
        m_granted.expiresAt = std::max(m_granted.expiresAt, grant.lease.expiresAt);
    // The center told the expiry on this edge's clock (writtenAt: the
    // heartbeat's send time by it plus what was left of the lease at the
    // grant), which ends no later than the center's: a clock that runs
    // behind cannot stretch it.
    Lease measured = grant.lease;
    if (!m_ctx.faults.breakLeaseClock)
        measured.expiresAt = grant.writtenAt;
    m_lease.onLease(measured, leaseClock(now));
    m_owner.observeLease(m_granted, m_edge);
    if (m_lease.lease().validAt(leaseClock(now)))
        m_owner.onLeaseValid(now, m_ctx.windowSeconds(stepSeconds()), out);
    // When the lease runs out by this edge's clock.
    out.timer(m_lease.lease().expiresAt + leaseClockLag(), kLeaseExpiry);
    // A lease that ends before the next heartbeat's answer could come (a
    // restarted edge is told its old lease, unchanged, with little left):
    // renew it now rather than lapse. Once per short grant: the answer to
    // an early renewal does not start another (a lease barely longer than
    // the heartbeat period would otherwise renew at every round trip).
    const double roundTrip = std::max(0.0, leaseClock(now) - m_heartbeatSentAt);
    const double left = m_lease.lease().expiresAt - leaseClock(now);
    const bool answersEarlyRenewal = m_renewingEarly;
    m_renewingEarly = false;
    if (!m_left && !answersEarlyRenewal && left > 0 && left < m_ctx.config->knobs.heartbeatSeconds + 2 * roundTrip) {
        sendHeartbeat(now, false, out);
        m_renewingEarly = true;
    }
    if (m_lease.mode() == EdgeLeaseState::Mode::CatchingUp && m_ctx.faults.breakCatchUp) {
        m_lease.onCaughtUp(leaseClock(now)); // test-only: trains on whatever it cached
    } else if (m_lease.mode() == EdgeLeaseState::Mode::CatchingUp &&
               (before != EdgeLeaseState::Mode::CatchingUp || m_lease.lease().epoch != epochBefore)) {
        // Ask every owner in the region for current values before training;
        // again if another epoch comes while it catches up (answers to the
        // first request may predate the second grant).
        m_awaitingCatchUp = ownerNodes();
        // Each ask's stamp is its own: greater than the last, even at the
        // same instant, so never 0 (the first is above nextafter(0)), which
        // every other Values message carries.
        m_catchUpAskedAt = std::max(leaseClock(now), std::nextafter(m_catchUpAskedAt, kInfinity));
        // Its timeout is its own too: one armed by an earlier ask (a lapse
        // and the same epoch renewed within it) must not cut this one short.
        out.timer(now + kCatchUpSeconds, kCatchUpTimeout, ++m_catchUpAsks);
        m_catchUpGiveUpAt = now + kLostValuesWaitSeconds;
        for (int node : m_awaitingCatchUp)
            out.send(catchUpRequest(node, m_catchUpAskedAt));
    }
    setMode(now, before, out);
    startStepIfAllowed(now, out);
}

Message SynapticEdge::catchUpRequest(int node, double stamp) const {
    Message req;
    req.kind = MessageKind::CatchUpRequest;
    req.to = node;
    req.origin = m_edge;
    req.lease = m_granted;
    req.writtenAt = stamp;
    return req;
}

bool SynapticEdge::answersCatchUp(const Message &values) const {
    // Values the owner sent before it heard of the new epoch may be older
    // than its version at the grant (behind a slow link several are in
    // flight): training on them would send gradients the epoch must not
    // carry (audit: trains_after_catch_up).
    return m_ctx.faults.breakCatchUpAnswer || values.writtenAt == m_catchUpAskedAt;
}

bool SynapticEdge::mayTrainAhead() const {
    // Only where waiting would idle the edge for more than a step: on a
    // fast link the answer comes within a step, and the next step is best
    // taken on the values it brings.
    return m_windowsAhead < m_ctx.config->knobs.trainAheadWindows && !m_answerSeconds.empty() &&
           medianAnswerSeconds() > stepSeconds();
}

void SynapticEdge::startStepIfAllowed(double now, Outbox &out) {
    if (m_done || m_stepRunning || !m_lease.canTrain(leaseClock(now)))
        return;
    const bool budgetUsed = m_ctx.stepsPerEdge > 0 && m_stepsPushed >= m_ctx.stepsPerEdge;
    if (!m_awaitingOwners.empty() && (budgetUsed || !mayTrainAhead()))
        return;
    if (budgetUsed) {
        closeWindow(now, true, out);
        m_done = true;
        return;
    }
    if (m_windowSteps == 0)
        m_windowStart = now;
    m_stepEpoch = m_lease.lease().epoch;
    m_replica->trainStep(); // real LibTorch work; its virtual duration comes from the compute model
    m_stepRunning = true;
    // On the node's compute queue, shared with serving requests (issue 14 §6).
    out.computeTimer(m_ctx.trainStepSeconds(), kStepDone);
}

void SynapticEdge::finishStep(double now, Outbox &out) {
    m_stepRunning = false;
    const auto before = m_lease.mode();
    m_lease.tick(leaseClock(now));
    setMode(now, before, out);
    // A gradient computed under an earlier epoch (the lease lapsed and came
    // back during the step, values changed under it) is never pushed.
    std::set<int> askForShards; // owners of shards not pushed: not held
    if (m_lease.canTrain(leaseClock(now)) && m_stepEpoch == m_lease.lease().epoch) {
        auto &flat = m_replica->model();
        std::vector<bool> pushed(std::size_t(flat.shardCount()));
        for (std::size_t s = 0; s < pushed.size(); ++s)
            pushed[s] = m_holdsValues[s] || m_ctx.faults.breakPushesOnlyHeldShards;
        // With local updates what goes to the cache is the replica's move
        // by the edge's own Adam step (charged like an owner's), not the gradient.
        const auto pushes = m_localUpdates ? m_local.step(flat, pushed, m_ctx.learningRate(m_stepsPushed))
                                           : flat.gradients();
        if (m_localUpdates)
            out.compute(m_ctx.computeSeconds(kAdamFlopsPerParameter * double(flat.size())));
        for (int s = 0; s < flat.shardCount(); ++s) {
            // A shard it holds no owner's values of (restarted, and that
            // owner stayed silent past kLostValuesWaitSeconds) is trained
            // on but not pushed: its gradient would be computed on the
            // starting values or the center's copy, versions behind. Its
            // owner is asked for the whole shard (below), which it may not
            // merge again for a long while if no other edge pushes to it.
            if (!pushed[std::size_t(s)]) {
                askForShards.insert(ownerNode(s));
                continue;
            }
            m_cache.pushGradient(s, flat.shardSlice(pushes, s),
                                 m_cache.cachedVersion(s));
        }
        ++m_stepsPushed;
        ++m_windowSteps;
        out.report(StepReport{std::uint64_t(m_replica->batchSize())});
    }
    for (const auto &v : m_pendingValues) {
        applyValues(now, v, out);
        if (answersWindow(v))
            m_awaitingOwners.erase(v.from);
        m_unresponsiveOwners.erase(v.from);
    }
    m_pendingValues.clear();
    for (int node : askForShards)
        if (!holdsValuesOf(node)) // values that came during the step may have brought them
            askForWholeValues(now, node, out);
    if (m_lease.canTrain(leaseClock(now))) {
        if (!m_awaitingOwners.empty()) {
            if (windowOver(now)) {
                // Trained ahead (mayTrainAhead): the window stays open until
                // the answer comes, so the slow link carries one message per
                // answer.
                ++m_windowsAhead;
                m_windowSteps = 0;
            }
        } else if (m_windowsAhead > 0) {
            // Windows kept open go as soon as the answer is in, whether or
            // not the current one is over: each step makes them staler.
            closeWindowIfDue(now, out);
        } else if (windowOver(now)) {
            closeWindow(now, false, out);
        }
    }
    startStepIfAllowed(now, out);
}

bool SynapticEdge::keepsWindowsAheadByFault() const {
    return m_ctx.faults.breakDropKeptWindows && m_windowsAhead > 0;
}

void SynapticEdge::dropOpenWindow() {
    m_cache.flush();
    m_local.dropUnsent();
    m_windowSteps = 0;
    m_windowsAhead = 0;
}

bool SynapticEdge::windowOver(double now) const {
    const auto &k = m_ctx.config->knobs;
    return m_windowSteps > 0 && (k.aggregationWindowMs > 0 ? now - m_windowStart >= k.aggregationWindowMs / 1e3 - 1e-12
                                                           : m_windowSteps >= k.aggregationWindowSteps);
}

void SynapticEdge::closeWindowIfDue(double now, Outbox &out) {
    if (m_done || m_windowsAhead == 0 || !m_lease.canTrain(leaseClock(now)))
        return;
    // With the step budget used these windows are the last: sent as such,
    // the owners need not wait another round trip on the slow link for an
    // empty last window (nor count the edge out meanwhile and sync early).
    const bool last = m_ctx.stepsPerEdge > 0 && m_stepsPushed >= m_ctx.stepsPerEdge;
    closeWindow(now, last, out);
    m_done = last;
}

std::vector<bool> SynapticEdge::heldShards(double now, bool last) const {
    std::vector<bool> hold(m_owners.size(), false);
    if (last || m_answerSeconds.empty())
        return hold; // everything goes with the last window
    const double median = medianAnswerSeconds();
    for (std::size_t shard = 0; shard < m_owners.size(); ++shard) {
        const int node = ownerNode(int(shard));
        const auto u = m_unanswered.find(node);
        if (u == m_unanswered.end() || !slowOwner(node, median))
            continue;
        // Not for ever: an answer may be lost, or the owner gone.
        const auto closed = m_windowClosedAt.find(u->second);
        hold[shard] = closed != m_windowClosedAt.end() && now - closed->second < kHoldForSlowOwnerSeconds;
    }
    return hold;
}

void SynapticEdge::closeWindow(double now, bool last, Outbox &out) {
    // Windows the edge kept open while it trained ahead go as one: the mean
    // of all their steps, weighed by the owner as a single window. Weighed
    // by their count, N kept-open windows would be N of the 7 + N in an ap
    // owner's merge on the default: one edge's labels would set most of that
    // merge's step (the non-IID case) and raise its learning-rate share by
    // (N - 1) / 8, on gradients that lack the answer to the edge's own last
    // window. The price: such an edge's samples weigh less than the others'.
    // Both were run on seeds 1-3 (docs/BENCHMARKS.md, seventh pass): no
    // difference three seeds can resolve; this is chosen on the argument.
    // Shards held for a slow owner (heldShards) still claim their count:
    // there the edge trained on fresh values, and only the owner is slow.
    // All of this is on gradients. Under local updates an edge sends the
    // sum of its moves, and every step in it counts, kept-open windows and
    // held shards alike: the owner adds moves unweighted (and uncapped).
    const auto merged = m_cache.flushExcept(heldShards(now, last));
    m_windowSteps = 0;
    m_windowsAhead = 0;
    ++m_window;
    std::map<int, Message> byOwner;
    auto messageFor = [&](int ownerNode) -> Message & {
        auto &m = byOwner[ownerNode];
        m.kind = MessageKind::Gradients;
        m.to = ownerNode;
        m.origin = m_edge;
        m.lease = m_granted;
        m.writtenAt = now;
        m.round = m_window;
        m.last = last;
        return m;
    };
    if (last) // every owner hears that this edge is finished
        for (int node : ownerNodes())
            messageFor(node);
    const std::uint64_t windowId = contributionId(m_edge, m_ctx.incarnation, m_window); // every item's, and the ledger's
    for (const auto &g : merged) {
        ShardItem item;
        item.shard = g.shard;
        item.version = g.baseVersion;
        item.windows = std::uint32_t(g.windows);
        // With local updates the edge sends what its replica moved over the
        // window: the sum of its steps' moves, not their mean.
        const at::Tensor update = m_localUpdates ? g.mean.mul(double(g.contributions)) : g.mean;
        if (m_localUpdates)
            m_local.markSent(m_replica->model(), g.shard);
        // Lossy codecs keep what they left out per shard and send it with
        // the next window (error feedback); fp32 sends the mean as it is.
        setCoded(item.data, item.coding, m_gradientFeedback[g.shard].compress(update, m_ctx.config->codecs.gradients));
        item.contributionIds.push_back(windowId);
        messageFor(ownerNode(g.shard)).shards.push_back(std::move(item));
    }
    // The window's id names the sender in the ledger (sent_by_edge beside
    // rejected_by_edge): one id for all of its items.
    if (!merged.empty())
        out.report(LedgerReport{LedgerReport::Kind::Sent, -1, merged.size(), {windowId}});
    if (!m_lease.canTrain(leaseClock(now)))
        out.ledger(LedgerReport::Kind::SentWhileReadOnly, byOwner.size());
    const double median = m_answerSeconds.empty() ? 0 : medianAnswerSeconds();
    m_windowClosedAt[m_window] = now;
    // Kept as long as a hold may last or a slow answer may take, not by
    // count: on the default a window is 8 ms, and a slow owner's answer
    // can take longer than many of them.
    while (m_windowClosedAt.size() > 1 && now - m_windowClosedAt.begin()->second > kWindowsTimedSeconds)
        m_windowClosedAt.erase(m_windowClosedAt.begin());
    for (auto &[node, m] : byOwner) {
        if (!last && !m.shards.empty() && m_ctx.config->knobs.waitForValues && !m_unresponsiveOwners.count(node) &&
            !slowOwner(node, median))
            m_awaitingOwners.insert(node);
        if (!m.shards.empty())
            m_unanswered[node] = m_window;
        out.send(std::move(m));
        ++m_gradientMessagesSent;
    }
    if (!m_awaitingOwners.empty()) {
        // Train on fresh values: wait for the owners' answer to this window,
        // but never longer than a few windows (an owner may be gone).
        const double window = m_ctx.windowSeconds(stepSeconds());
        out.timer(now + (m_ctx.realTime ? 8 * window + 0.6 : 2 * window + 0.1), kValuesTimeout, m_window);
    }
}

void SynapticEdge::noteAnswer(double now, const Message &values) {
    // Only an owner's answer to one of this edge's windows times it (values
    // after a center sync or a catch-up answer nothing this edge sent).
    // Values an owner sends again for a window it answered already (after
    // a center sync) are not an answer: each owner's first per window is.
    const auto closed = m_windowClosedAt.find(values.round);
    auto &timed = m_lastTimedWindow[values.from];
    if (values.shards.empty() || closed == m_windowClosedAt.end() || values.round <= timed)
        return;
    timed = values.round;
    const double seconds = now - closed->second;
    const auto [it, fresh] = m_answerSeconds.emplace(values.from, seconds);
    if (!fresh)
        it->second = 0.8 * it->second + 0.2 * seconds;
}

double SynapticEdge::medianAnswerSeconds() const {
    std::vector<double> all;
    for (const auto &[owner, seconds] : m_answerSeconds)
        all.push_back(seconds);
    // The lower median: with half the owners slow, the fast half sets it.
    const auto mid = all.begin() + std::ptrdiff_t((all.size() - 1) / 2);
    std::nth_element(all.begin(), mid, all.end());
    return *mid;
}

bool SynapticEdge::slowOwner(int node, double median) const {
    const auto mine = m_answerSeconds.find(node);
    if (mine == m_answerSeconds.end() || m_answerSeconds.size() < 2)
        return false;
    return mine->second > kSlowOwnerFactor * median && mine->second > median + kSlowOwnerMarginSeconds;
}

void SynapticEdge::applyValues(double now, const Message &m, Outbox &out) {
    bool missedDelta = false;
    bool wholeArrived = false;
    for (const auto &item : m.shards) {
        const auto cached = m_cache.cachedVersion(item.shard);
        // Test-only: older whole values get through (the audit must catch it).
        const bool older = item.version < cached && m_ctx.faults.breakVersionGuard && !item.delta;
        if ((item.version < cached || (item.version == cached && item.version != 0)) && !older)
            continue; // older or equal news (version 0 again: the starting values, harmless)
        if (item.delta) {
            // A value delta applies only to the version it was taken from;
            // an edge that missed one asks its owner for the whole shard.
            if (item.deltaFrom != m_cache.cachedVersion(item.shard)) {
                missedDelta = true;
                continue;
            }
            auto &flat = m_replica->model();
            flat.setShardValues(item.shard, m_localUpdates
                                                ? m_local.onValueDelta(flat, item.shard, item.data)
                                                : flat.shardValues(item.shard).add_(item.data));
        } else {
            // Under local updates the edge's moves the owner has not been
            // sent yet stay on top (LocalUpdates; the delta path above too).
            m_replica->model().setShardValues(
                item.shard, m_localUpdates
                                ? m_local.onWholeValues(m_replica->model(), item.shard, item.data)
                                : item.data);
            m_holdsValues[std::size_t(item.shard)] = true;
            wholeArrived = true;
        }
        if (item.version > m_cache.cachedVersion(item.shard) || older) {
            m_cache.setCachedVersion(item.shard, item.version, older);
            out.report(RouteReport{RouteReport::Kind::CachedVersion, item.shard, -1, m_edge, item.version, 0});
        }
    }
    // The owner answered: ask again after the next miss. Not while shards
    // its map gives this owner are still missing (a stale map after a
    // move): the limit on asks for them would go with it.
    if (wholeArrived && holdsValuesOf(m.from))
        m_catchUpAsked.erase(m.from);
    if (missedDelta)
        askForWholeValues(now, m.from, out);
}

void SynapticEdge::askForWholeValues(double now, int node, Outbox &out) {
    // Once per kCatchUpSeconds: the request or its answer may be lost (both
    // are best effort), and an edge that never asked again would keep
    // skipping this owner's deltas, or its shards, for good.
    const auto asked = m_catchUpAsked.find(node);
    if (asked != m_catchUpAsked.end() && now - asked->second < kCatchUpSeconds)
        return;
    m_catchUpAsked[node] = now;
    out.send(catchUpRequest(node, 0)); // unstamped: not a lease catch-up
}

void SynapticEdge::onLeave(double now, const std::vector<bool> &edgeUp, Outbox &out) {
    m_done = true; // no more training: what is in the cache is dropped, as on a lease lapse
    dropOpenWindow();
    // Every shard this edge owns goes to the other edges of its region that
    // are up, in turn, so the region keeps merging without it (with nobody
    // to hand to, the shards wait at the center's last copy).
    std::vector<int> heirs;
    for (int e : m_ctx.shape->edgesOfRegion[std::size_t(m_region)])
        if (e != m_edge && std::size_t(e) < edgeUp.size() && edgeUp[std::size_t(e)])
            heirs.push_back(e);
    std::size_t next = 0;
    for (int shard : heirs.empty() ? std::vector<int>{} : m_owner.ownedShards())
        m_owner.moveShard(now, shard, heirs[next++ % heirs.size()], out);
    m_owner.persistOnStop(out); // what it still owns (no heirs) keeps every merge
    // Give the lease back: the center need not wait for it to lapse (and
    // stops counting this edge's region once its other edges are gone).
    m_left = true;
    Message bye;
    bye.kind = MessageKind::Heartbeat;
    bye.to = kCenterNode;
    bye.lease = m_granted;
    bye.last = true;
    out.send(bye);
    out.report(LeaseEvent{now, m_edge, "leaving", m_lease.lease().epoch});
}

std::string SynapticEdge::onCommand(double now, const SimCommand &cmd, Outbox &out) {
    if (cmd.kind != SimCommand::Kind::MoveShard)
        return "an edge takes only move-shard commands";
    return m_owner.moveShard(now, cmd.shard, cmd.node, out);
}

} // namespace synaptic::engine
