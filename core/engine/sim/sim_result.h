#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::engine {

// One message kind's share of a run's WAN traffic: what the WAN bytes are
// made of (issue 14). `messages` counts every time one went on a link, a
// resend after a loss included, as the bytes do. tensorBytes and
// batchNormBytes are the parts of `bytes` that are coded tensor data
// (values, int8 scales, top-k indices) and batch-norm statistics
// (wire_size.h); the rest is protobuf fields and gRPC framing.
struct KindTraffic {
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
    std::uint64_t tensorBytes = 0;
    std::uint64_t batchNormBytes = 0;
    std::uint64_t tensorElements = 0; // the fp32 elements tensorBytes stand for (decoded)
};

struct CurvePoint {
    double virtualSeconds = 0;
    std::uint64_t samples = 0;
    double accuracy = 0;      // test subset
    double exitAccuracy = 0;
    double loss = 0;          // mean training loss since the previous point (NaN at t=0)
    std::uint64_t bytesToCenter = 0;
    std::uint64_t wanBytes = 0;
    std::uint64_t totalBytes = 0;
};

// What one strategy's run produced (issue 3 §11). Bytes count every message
// put on a link, retransmissions included; "to center" is every byte into or
// out of the center; "WAN" every byte on a link that is not inside a region.
struct StrategyResult {
    std::string strategy;
    std::string task; // what it trained (a TaskRegistry name)
    std::string device;            // where the tensors lived ("cpu", "cuda:0")
    double finalAccuracy = 0;      // full test set, the strategy's global model at the end
    double finalExitAccuracy = 0;
    std::optional<double> timeToTargetSeconds; // virtual; first evaluation at or above the target
    double targetAccuracy = 0;
    std::uint64_t bytesToCenter = 0;
    std::uint64_t wanBytes = 0;
    std::uint64_t totalBytes = 0;
    // Early-exit serving's traffic (features, replies, edge images): on the
    // same links (LinkBytesEvents include it) but not in the training
    // figures above, so strategies compare the same with serving on or off.
    std::uint64_t servingBytes = 0;
    std::map<std::string, KindTraffic> wanByKind; // by messageKindName; sums to wanBytes
    std::uint64_t messages = 0;
    std::uint64_t messagesLost = 0;     // lost on a lossy link and sent again
    std::uint64_t messagesDropped = 0;  // link down or receiver dead: never delivered
    std::uint64_t bytesLost = 0;        // bytes of lost (resent) and dropped messages
    std::uint64_t messagesDuplicated = 0; // delivered twice by a duplicating link (a fault)
    std::uint64_t samples = 0;
    double virtualSeconds = 0;
    double wallSeconds = 0;
    double evalWallSeconds = 0;         // evaluation passes, timed apart
    double trainWallSeconds = 0;        // wallSeconds - evalWallSeconds
    std::uint64_t events = 0;
    std::uint64_t eventHash = 0;
    // Contribution ledger (synaptic): window gradients sent, applied, rejected
    // under an expired lease, applied twice (must be 0), rerouted after a move.
    std::uint64_t contributionsSent = 0;
    std::uint64_t contributionsApplied = 0;
    std::uint64_t contributionsRejected = 0;
    // Why the owners refused them ("stale_epoch", "expired_lease",
    // "too_stale", ...) and which edges sent them, by name; beside what
    // each edge sent, for its share refused.
    std::map<std::string, std::uint64_t> contributionsRejectedByReason;
    std::map<std::string, std::uint64_t> contributionsRejectedByEdge;
    std::map<std::string, std::uint64_t> contributionsSentByEdge;
    std::uint64_t contributionsDuplicated = 0;
    std::uint64_t contributionsForwarded = 0;
    std::uint64_t contributionsUnderExpiredLease = 0; // applied although written under an expired lease (must be 0)
    std::uint64_t gradientsSentWhileReadOnly = 0;     // gradient messages from a read-only edge (must be 0)
    // Crashes (issue 15 §1): contributions buffered at a killed owner, and
    // those applied in merges its crash undid (not yet durable), the merges
    // themselves, and the owners' durable state writes.
    std::uint64_t contributionsLostInCrash = 0;
    std::uint64_t contributionsRolledBack = 0;
    std::uint64_t mergesLostInCrash = 0;
    std::uint64_t durableStateWrites = 0;
    // The owners' link to the center is made reliable by resending (issue
    // 15): deltas sent again after no answer, and copies (resent or
    // duplicated on the way) of deltas the center had merged already
    // (answered again, never merged twice).
    std::uint64_t centerDeltasResent = 0;
    std::uint64_t centerResentAlreadyMerged = 0;
    double maxRegionDrift = 0;          // worst parameter drift (shard, region) the center measured
    double meanRegionDrift = 0;         // mean over every (shard, region) drift measurement
    std::vector<CurvePoint> curve;
    std::vector<std::string> notes;     // plan problems and the like
    // The config the run started from (clusterConfigToJson: every knob,
    // link and codec, after a benchmark's scenario edits); commands may
    // change knobs later in the run.
    std::string startConfigJson;
    std::string stoppedEarly;           // why a step-budget run stopped before finishing (empty: it finished)
};

} // namespace synaptic::engine
