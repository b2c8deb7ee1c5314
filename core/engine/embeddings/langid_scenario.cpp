#include "langid_scenario.h"

#include "core/data/fortune_corpus.h"
#include "core/engine/sim/cluster_config.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <thread>

namespace synaptic::engine {

HotUpdateResult runLangIdScenario(const SimRunRequest &request,
                                  const std::function<void(const HotUpdateProgress &)> &progress) {
    const ClusterConfig config = loadClusterConfig(request.configPath);
    HotUpdateOptions options;
    options.seed = request.seed.value_or(config.seed);
    options.hotUpdates = request.hotUpdates;
    if (request.virtualSeconds > 0)
        options.duration = request.virtualSeconds;
    at::set_num_threads(request.threads > 0 ? request.threads
                                            : std::max(1, int(std::thread::hardware_concurrency())));
    data::FortuneOptions corpusOptions;
    corpusOptions.maxPerLanguage = options.maxPerLanguage;
    corpusOptions.languages = options.languages;
    // --data, else the config's data.dir when the config is a langid one (an
    // image config's names Fashion-MNIST's folder), else Debian's folder.
    const std::string configDir = config.task == "langid" ? config.dataDir : std::string();
    const auto corpus = data::loadFortuneCorpus(
        data::resolveFortuneDir(request.dataDir.empty() ? configDir : request.dataDir), corpusOptions);
    return runHotUpdateScenario(config, corpus, options, progress);
}

} // namespace synaptic::engine
