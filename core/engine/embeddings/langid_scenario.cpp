#include "langid_scenario.h"

#include "core/data/fortune_corpus.h"
#include "core/engine/compute_threads.h"
#include "core/engine/sim/cluster_config.h"

#include <ATen/Parallel.h>

#include <algorithm>

namespace synaptic::engine {

std::string configFortuneDir(const ClusterConfig &config) {
    return config.task == "langid" ? config.dataDir : std::string();
}

HotUpdateResult runLangIdScenario(const SimRunRequest &request,
                                  const std::function<void(const HotUpdateProgress &)> &progress) {
    const ClusterConfig config = loadClusterConfig(request.configPath);
    HotUpdateOptions options;
    options.seed = request.seed.value_or(config.seed);
    options.hotUpdates = request.hotUpdates;
    if (request.virtualSeconds > 0)
        options.duration = request.virtualSeconds;
    setComputeThreads(resolveThreadCount(request.threads));
    data::FortuneOptions corpusOptions;
    corpusOptions.maxPerLanguage = options.maxPerLanguage;
    corpusOptions.languages = options.languages;
    // --data, else the config's fortune folder, else Debian's.
    const auto corpus = data::loadFortuneCorpus(
        data::resolveFortuneDir(request.dataDir.empty() ? configFortuneDir(config) : request.dataDir), corpusOptions);
    return runHotUpdateScenario(config, corpus, options, progress);
}

} // namespace synaptic::engine
