#pragma once

#include "langid_model.h"
#include "task_model.h"

#include <memory>
#include <string>

namespace synaptic::engine {

// Language ID as every training strategy runs it (issue 16 §1): the same
// fastText-style model and corpus as the hot-update scenario, with the
// table's gradient dense (FlatModel views every gradient in one flat tensor)
// and cross-entropy as the loss. No early-exit head: serving is off.
std::unique_ptr<TaskModel> makeLangIdTaskModel(const LangIdShape &shape);

// What the strategies' language-ID data is made of: the hot-update
// scenario's texts and n-grams (hot_update_options.h); the rows they hash
// into are the registered model's (2^16).
struct LangIdDataOptions {
    std::int64_t buckets = std::int64_t(1) << 16;
    int ngramMax = 3;
    std::size_t maxPerLanguage = 3000;
};

// The fortune files under `dir` (data::resolveFortuneDir's lookup) as ragged
// sets of hashed n-gram rows, every language, train and test each shuffled
// once with a fixed seed (the corpus comes in label order; an evaluation
// subset must hold every language). Throws DataError naming a missing folder
// or language and its package.
TaskData loadLangIdData(const std::string &dir, const std::string &device, const LangIdDataOptions &options = {});

// Training FLOPs of one text of the corpus's typical length.
double langIdTrainFlopsPerSample(const LangIdShape &shape);

} // namespace synaptic::engine
