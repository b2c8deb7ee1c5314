#pragma once

#include "core/data/fortune_corpus.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace synaptic::engine {

// The language-ID benchmark's baseline: a character-trigram frequency
// classifier (multinomial naive Bayes over exact trigrams of the lower-cased,
// space-padded text, add-one smoothing, class priors from the training set).
// The classic n-gram profile method; no hashing, no learning rate, no epochs.
class TrigramBaseline {
public:
    explicit TrigramBaseline(int classes);

    void train(const std::vector<data::TextSample> &texts);
    int predict(const std::string &text) const;
    std::vector<int> predict(const std::vector<data::TextSample> &texts) const;

    std::size_t vocabulary() const { return m_vocabulary.size(); }

private:
    int m_classes;
    std::vector<std::unordered_map<std::string, double>> m_counts; // per class
    std::vector<double> m_totals;
    std::vector<double> m_logPrior;
    std::unordered_map<std::string, int> m_vocabulary;
};

std::vector<std::string> charTrigrams(const std::string &utf8);

} // namespace synaptic::engine
