#include "char_ngrams.h"

#include "fortune_corpus.h"

#include <stdexcept>
#include <string>

namespace synaptic::data {

std::vector<std::int64_t> hashedNgrams(std::string_view utf8, const NgramOptions &options) {
    if (options.buckets <= 0 || options.minN < 1 || options.maxN < options.minN)
        throw std::invalid_argument("n-gram options: need buckets > 0 and 1 <= minN <= maxN (got buckets " +
                                    std::to_string(options.buckets) + ", n " + std::to_string(options.minN) +
                                    ".." + std::to_string(options.maxN) + ")");
    std::string text;
    text.reserve(utf8.size() + 2);
    text.push_back(' ');
    for (char c : utf8)
        text.push_back(c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c);
    text.push_back(' ');

    // Byte offset of every code point, plus the end.
    std::vector<std::size_t> starts;
    starts.reserve(text.size() + 1);
    for (std::size_t i = 0; i < text.size(); ++i)
        if ((std::uint8_t(text[i]) & 0xC0) != 0x80)
            starts.push_back(i);
    const std::size_t points = starts.size();
    starts.push_back(text.size());

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
