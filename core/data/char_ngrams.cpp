#include "char_ngrams.h"

#include "fortune_corpus.h"

#include <stdexcept>
#include <string>

namespace synaptic::data {

PaddedText padForNgrams(std::string_view utf8) {
    PaddedText p;
    p.text.reserve(utf8.size() + 2);
    p.text.push_back(' ');
    for (char c : utf8)
        p.text.push_back(c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c);
    p.text.push_back(' ');
    p.starts.reserve(p.text.size() + 1);
    for (std::size_t i = 0; i < p.text.size(); ++i)
        if ((std::uint8_t(p.text[i]) & 0xC0) != 0x80)
            p.starts.push_back(i);
    p.starts.push_back(p.text.size());
    return p;
}

std::vector<std::int64_t> hashedNgrams(std::string_view utf8, const NgramOptions &options) {
    if (options.buckets <= 0 || options.minN < 1 || options.maxN < options.minN)
        throw std::invalid_argument("n-gram options: need buckets > 0 and 1 <= minN <= maxN (got buckets " +
                                    std::to_string(options.buckets) + ", n " + std::to_string(options.minN) +
                                    ".." + std::to_string(options.maxN) + ")");
    const PaddedText padded = padForNgrams(utf8);
    const std::string &text = padded.text;
    const auto &starts = padded.starts;
    const std::size_t points = padded.codePoints();

    std::vector<std::int64_t> out;
    out.reserve(points * std::size_t(options.maxN - options.minN + 1));
    for (int n = options.minN; n <= options.maxN; ++n) {
        const char order = char('0' + n); // one seed per n, the same on every byte order
        const std::uint64_t seed = fnv1a(&order, 1);
        for (std::size_t i = 0; i + std::size_t(n) <= points; ++i) {
            const std::size_t from = starts[i];
            const std::size_t to = starts[i + std::size_t(n)];
            if (n == 1 && text[from] == ' ')
                continue; // the padding alone says nothing
            out.push_back(std::int64_t(fnv1a(text.data() + from, to - from, seed) % std::uint64_t(options.buckets)));
        }
    }
    return out;
}

void appendNgrams(NgramBatch &batch, std::string_view utf8, const NgramOptions &options) {
    batch.offsets.push_back(std::int64_t(batch.indices.size()));
    const auto grams = hashedNgrams(utf8, options);
    batch.indices.insert(batch.indices.end(), grams.begin(), grams.end());
}

} // namespace synaptic::data
