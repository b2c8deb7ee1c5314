#include "trigram_baseline.h"

#include "core/data/char_ngrams.h"

#include <cmath>

namespace synaptic::engine {

std::vector<std::string> charTrigrams(const std::string &utf8) {
    const auto padded = data::padForNgrams(utf8);
    const auto &text = padded.text;
    const auto &starts = padded.starts;
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 3 < starts.size(); ++i)
        out.push_back(text.substr(starts[i], starts[i + 3] - starts[i]));
    return out;
}

TrigramBaseline::TrigramBaseline(int classes)
    : m_classes(classes), m_counts(std::size_t(classes)), m_totals(std::size_t(classes), 0.0),
      m_logPrior(std::size_t(classes), 0.0) {}

void TrigramBaseline::train(const std::vector<data::TextSample> &texts) {
    std::vector<double> docs(std::size_t(m_classes), 0.0);
    for (const auto &t : texts) {
        docs[std::size_t(t.label)] += 1.0;
        for (auto &g : charTrigrams(t.text)) {
            m_counts[std::size_t(t.label)][g] += 1.0;
            m_totals[std::size_t(t.label)] += 1.0;
            m_vocabulary.emplace(std::move(g), 0);
        }
    }
    for (std::size_t c = 0; c < docs.size(); ++c)
        m_logPrior[c] = std::log((docs[c] + 1.0) / (double(texts.size()) + m_classes));
}

int TrigramBaseline::predict(const std::string &text) const {
    const auto grams = charTrigrams(text);
    const double v = double(m_vocabulary.size()) + 1.0;
    int best = 0;
    double bestScore = -INFINITY;
    for (int c = 0; c < m_classes; ++c) {
        const auto &counts = m_counts[std::size_t(c)];
        const double denominator = std::log(m_totals[std::size_t(c)] + v);
        double score = m_logPrior[std::size_t(c)];
        for (const auto &g : grams) {
            const auto it = counts.find(g);
            score += std::log((it == counts.end() ? 0.0 : it->second) + 1.0) - denominator;
        }
        if (score > bestScore) {
            bestScore = score;
            best = c;
        }
    }
    return best;
}

std::vector<int> TrigramBaseline::predict(const std::vector<data::TextSample> &texts) const {
    std::vector<int> out;
    out.reserve(texts.size());
    for (const auto &t : texts)
        out.push_back(predict(t.text));
    return out;
}

} // namespace synaptic::engine
