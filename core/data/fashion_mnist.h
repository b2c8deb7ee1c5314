#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::data {

// Where the Debian package dataset-fashion-mnist installs the files.
inline constexpr const char *kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";
inline constexpr int kImageSide = 28;
inline constexpr int kImagePixels = kImageSide * kImageSide;
inline constexpr int kNumClasses = 10;
// Per-pixel statistics of the Fashion-MNIST training set (pixels scaled to [0,1]).
inline constexpr float kPixelMean = 0.2860f;
inline constexpr float kPixelStd = 0.3530f;

enum class Split { Train, Test };

// Raw images (row-major, kImagePixels bytes each) and labels, as in the files.
// Kept as bytes so the data layer needs no LibTorch; the engine converts.
struct ImageSet {
    std::vector<std::uint8_t> pixels;
    std::vector<std::uint8_t> labels;
    std::string source; // directory it came from, for messages

    std::size_t size() const { return labels.size(); }
};

// The directory to read from: an explicit one if non-empty, else
// $SYNAPTIC_DATA_DIR, else kDefaultFashionMnistDir.
std::string resolveDataDir(const std::string &explicitDir);

// The first of the four dataset files not present in `dir` (a path), or ""
// when all are. Checks presence only: a damaged file fails the loader.
std::string missingFashionMnistFile(const std::string &dir);

// Loads one split from `dir` (train-*.gz or t10k-*.gz). Checks magic numbers,
// image dimensions (28x28), that image and label counts agree and that labels
// are 0..9; throws DataError naming the file and the problem otherwise.
// `limit` > 0 keeps only the first `limit` samples.
ImageSet loadFashionMnist(const std::string &dir, Split split, std::size_t limit = 0);

} // namespace synaptic::data
