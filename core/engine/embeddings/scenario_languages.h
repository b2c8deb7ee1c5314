#pragma once

#include "core/data/fortune_corpus.h"

#include <algorithm>
#include <string>

namespace synaptic::engine {

// Whether the hot-update scenario can run on the installed fortune files:
// it needs its new language (held out, then shown to one region) and at
// least one other to train on from the start. One rule for the scenario's
// window and for the app's offer to run it without Fashion-MNIST.
inline bool hotUpdateScenarioCanRun(const data::FortuneAvailability &have, const std::string &newLanguage) {
    const bool hasNew = std::find(have.present.begin(), have.present.end(), newLanguage) != have.present.end();
    return hasNew && have.present.size() >= 2;
}

} // namespace synaptic::engine
