#include "fashion_mnist.h"

#include "data_error.h"
#include "idx_file.h"

#include <cstdlib>
#include <filesystem>

namespace synaptic::data {

std::string resolveDataDir(const std::string &explicitDir) {
    if (!explicitDir.empty())
        return explicitDir;
    if (const char *env = std::getenv("SYNAPTIC_DATA_DIR"); env && *env)
        return env;
    return kDefaultFashionMnistDir;
}

namespace {

std::string imagesFile(const std::string &dir, Split split) {
    return (std::filesystem::path(dir) / (split == Split::Train ? "train-images-idx3-ubyte.gz"
                                                                : "t10k-images-idx3-ubyte.gz")).string();
}

std::string labelsFile(const std::string &dir, Split split) {
    return (std::filesystem::path(dir) / (split == Split::Train ? "train-labels-idx1-ubyte.gz"
                                                                : "t10k-labels-idx1-ubyte.gz")).string();
}

} // namespace

std::string missingFashionMnistFile(const std::string &dir) {
    std::error_code ec;
    for (Split split : {Split::Train, Split::Test})
        for (const std::string &path : {imagesFile(dir, split), labelsFile(dir, split)})
            if (!std::filesystem::is_regular_file(path, ec))
                return path;
    return {};
}

ImageSet loadFashionMnist(const std::string &dir, Split split, std::size_t limit) {
    if (!std::filesystem::is_directory(dir))
        throw DataError(dir, "data directory not found (install dataset-fashion-mnist or pass --data DIR)");
    const std::string imagesPath = imagesFile(dir, split);
    const std::string labelsPath = labelsFile(dir, split);

    IdxFile images = readIdxFile(imagesPath, 3);
    IdxFile labels = readIdxFile(labelsPath, 1);
    if (images.dims[1] != kImageSide || images.dims[2] != kImageSide)
        throw DataError(imagesPath, "images are " + std::to_string(images.dims[1]) + "x" +
                                        std::to_string(images.dims[2]) + ", expected 28x28");
    if (images.count() != labels.count())
        throw DataError(labelsPath, "has " + std::to_string(labels.count()) + " labels but " + imagesPath +
                                        " has " + std::to_string(images.count()) + " images");
    for (std::size_t i = 0; i < labels.bytes.size(); ++i) {
        if (labels.bytes[i] >= kNumClasses)
            throw DataError(labelsPath, "label " + std::to_string(labels.bytes[i]) + " at index " +
                                            std::to_string(i) + " is outside 0..9");
    }

    ImageSet set;
    set.source = dir;
    const std::size_t n = limit > 0 ? std::min(limit, labels.count()) : labels.count();
    set.labels.assign(labels.bytes.begin(), labels.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    images.bytes.resize(n * kImagePixels);
    set.pixels = std::move(images.bytes);
    return set;
}

} // namespace synaptic::data
