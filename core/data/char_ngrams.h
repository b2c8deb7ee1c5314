#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace synaptic::data {

// fastText-style hashed character n-grams: the text is lower-cased (ASCII
// only: no ICU in the engine), padded with a space at each end, and every run
// of minN..maxN code points is hashed (FNV-1a of its UTF-8 bytes, one seed per
// n so a unigram and a bigram of the same bytes differ) into `buckets` rows of
// an embedding table.
struct NgramOptions {
    int minN = 1;
    int maxN = 4;
    std::int64_t buckets = std::int64_t(1) << 16;
};

// Throws std::invalid_argument for buckets <= 0 or n outside 1 <= minN <= maxN.
// What both the hashed n-grams and the trigram baseline read: the text
// lower-cased (ASCII), a space at each end, and the byte offset where every
// code point starts, plus the end.
struct PaddedText {
    std::string text;
    std::vector<std::size_t> starts; // code points + 1 entries
    std::size_t codePoints() const { return starts.size() - 1; }
};
PaddedText padForNgrams(std::string_view utf8);

std::vector<std::int64_t> hashedNgrams(std::string_view utf8, const NgramOptions &options = {});

// Many texts' n-grams in the EmbeddingBag layout: one flat index list and the
// offset where each text's list starts.
struct NgramBatch {
    std::vector<std::int64_t> indices;
    std::vector<std::int64_t> offsets;
};

void appendNgrams(NgramBatch &batch, std::string_view utf8, const NgramOptions &options = {});

} // namespace synaptic::data
