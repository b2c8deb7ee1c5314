#pragma once

#include "core/engine/codec/codec_spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace synaptic::engine {

struct ClusterConfig;

// The fortune folder a cluster config names: its data.dir when the config's
// own task is langid, empty otherwise (an image config's data.dir is
// Fashion-MNIST's folder; empty means Debian's fortune folder).
std::string configFortuneDir(const ClusterConfig &config);

// The hot-update scenario of issue 16 §4 on the language-ID task: every region
// trains on eleven languages; at `newLanguageAt` one region's edges start
// receiving a language none of the others has seen. Times are virtual seconds.
struct HotUpdateOptions {
    std::string newLanguage = "eo";   // held out of every region until newLanguageAt
    int newLanguageRegion = 0;        // index into the config's regions
    double newLanguageAt = 1.0;
    double newLanguageShare = 0.25;   // of each batch at that region's edges, from then on
    double duration = 6.0;
    // The model every node starts from: trained in one process on every
    // language but the new one for this many epochs (0: untrained). A
    // deployed model meeting new data, as the scenario describes.
    int warmStartEpochs = 2;
    // A publish behind a slow link carries at most this many seconds of the
    // link's bandwidth, rows an edge has never been sent first; the rest waits.
    double publishBudgetSeconds = 0.05;
    // Data arrival: each edge gets a batch every stepInterval (plus its compute).
    double stepInterval = 0.05;
    int batch = 32;
    double lr = 2.0;                  // SGD on the region's mean gradient (owners)
    int windowSteps = 0;              // an edge's aggregation window (0: the config's knob)
    int centerSyncWindows = 0;        // owners report to the center every N windows (0: the config's knob)
    bool hotUpdates = true;           // owners forward changes owner to owner
    // With hot updates: an owner applies its own change one WAN latency later,
    // when the farthest other region's owner gets it (copies move together).
    bool holdOwnChanges = true;
    int lagBound = 4;                 // publishes an edge may miss before it asks
    // How owner -> edge row values travel (publishes, catch-up answers):
    // int8 (issue 14's codec, one scale per 256 values) unless set;
    // std::nullopt: the config's codecs.values. In fp32 the publish stream
    // overruns the default cluster's 20 Mb/s last mile (docs/EMBEDDINGS.md).
    std::optional<CodecSpec> valuesCodec = CodecSpec{Codec::Int8};
    double catchUpTimeout = 0.02;     // s before a catch-up with no answer is asked again (doubling)
    double evalEvery = 0.1;
    std::size_t evalSubset = 400;     // test texts per evaluation (new language: all)
    std::uint64_t seed = 1;
    // 2^20 rows of hashed character 1..3-grams: the corpus's n-grams fill 20 %
    // of them, so a window touches ~1 % of a shard (2^16 rows would be full).
    std::int64_t buckets = std::int64_t(1) << 20;
    int ngramMax = 3;
    std::int64_t dim = 32;
    std::size_t maxPerLanguage = 3000;
    // Language codes to read (empty: all twelve); the app narrows it to the
    // installed ones when the user chooses to go on without the others.
    std::vector<std::string> languages;
    // Test-only: edges ignore gaps in the publishes they receive (the lag
    // guard's break switch; tst_embeddings sees the audit catch it).
    bool breakLagGuard = false;
};

} // namespace synaptic::engine
