#include "model_file.h"

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace synaptic::engine {

namespace {

constexpr char kModelFileMagic[8] = {'S', 'Y', 'N', 'M', 'O', 'D', 'E', 'L'};
constexpr std::uint32_t kModelFileVersion = 1;

using nlohmann::json;

std::uint32_t modelFileCrc(const std::string &bytes) {
    uLong crc = crc32(0L, Z_NULL, 0);
    // zlib takes uInt lengths; feed in pieces so a file over 4 GiB is not truncated.
    for (std::size_t off = 0; off < bytes.size(); off += 1u << 30) {
        const auto n = std::min<std::size_t>(bytes.size() - off, 1u << 30);
        crc = crc32(crc, reinterpret_cast<const Bytef *>(bytes.data() + off), uInt(n));
    }
    return std::uint32_t(crc);
}

void putU32(std::string &out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
        out.push_back(char((v >> (8 * i)) & 0xff));
}
void putU64(std::string &out, std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
        out.push_back(char((v >> (8 * i)) & 0xff));
}
std::uint64_t getLE(const std::string &in, std::size_t at, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= std::uint64_t(std::uint8_t(in[at + std::size_t(i)])) << (8 * i);
    return v;
}

// Every tensor a model file carries, by name: parameters and buffers
// (batch-norm running statistics matter at inference).
std::vector<std::pair<std::string, torch::Tensor>> tensorsOf(torch::nn::Module &model) {
    std::vector<std::pair<std::string, torch::Tensor>> all;
    for (const auto &p : model.named_parameters())
        all.emplace_back(p.key(), p.value());
    for (const auto &b : model.named_buffers())
        all.emplace_back(b.key(), b.value());
    return all;
}

std::string utcNow() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char buf[32];
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void writeSynced(const std::string &path, const std::string &bytes) {
    std::FILE *f = std::fopen(path.c_str(), "wb");
    if (!f)
        throw ModelFileError(path + ": cannot create: " + std::strerror(errno));
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size() && std::fflush(f) == 0 &&
                    ::fsync(fileno(f)) == 0;
    const int err = errno;
    const bool closed = std::fclose(f) == 0;
    if (!ok || !closed)
        throw ModelFileError(path + ": cannot write: " + std::strerror(err));
}

[[noreturn]] void bad(const std::string &path, const std::string &what) { throw ModelFileError(path + ": " + what); }

} // namespace

void saveModel(const std::string &path, torch::nn::Module &model, const ModelFileInfo &info) {
    json arch = json::array();
    torch::serialize::OutputArchive archive;
    for (const auto &[name, t] : tensorsOf(model)) {
        archive.write(name, t.detach().to(torch::kCPU), /*is_buffer=*/true);
        arch.push_back({{"name", name}, {"shape", t.sizes().vec()}});
    }
    std::ostringstream payload;
    archive.save_to(payload);
    const json header = {{"source", info.source},
                         // -1: unknown (a model without an early exit has NaN there)
                         {"test_accuracy", std::isfinite(info.testAccuracy) ? info.testAccuracy : -1.0},
                         {"exit_test_accuracy", std::isfinite(info.exitTestAccuracy) ? info.exitTestAccuracy : -1.0},
                         {"saved_at", info.savedAt.empty() ? utcNow() : info.savedAt},
                         {"tensors", arch}};
    const std::string headerText = header.dump();
    const std::string weights = payload.str();

    std::string bytes(kModelFileMagic, sizeof kModelFileMagic);
    putU32(bytes, kModelFileVersion);
    putU32(bytes, std::uint32_t(headerText.size()));
    putU64(bytes, weights.size());
    bytes += headerText;
    bytes += weights;
    putU32(bytes, modelFileCrc(bytes));

    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path tmp = target.parent_path() / (target.filename().string() + ".tmp-" + std::to_string(::getpid()));
    try {
        writeSynced(tmp.string(), bytes);
        fs::rename(tmp, target);
    } catch (const fs::filesystem_error &e) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw ModelFileError(path + ": cannot replace: " + e.code().message());
    } catch (...) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw;
    }
}

ModelFileInfo loadModel(const std::string &path, torch::nn::Module &model) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        bad(path, "cannot open (does it exist?)");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    constexpr std::size_t kFixed = sizeof kModelFileMagic + 4 + 4 + 8;
    if (bytes.size() < sizeof kModelFileMagic || bytes.compare(0, sizeof kModelFileMagic, kModelFileMagic, sizeof kModelFileMagic) != 0)
        bad(path, "not a Synaptic model file (no SYNMODEL magic at offset 0)");
    if (bytes.size() < kFixed + 4)
        bad(path, "truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the header");
    const auto version = std::uint32_t(getLE(bytes, 8, 4));
    if (version > kModelFileVersion)
        bad(path, "model format version " + std::to_string(version) + " is newer than this build reads (" +
                      std::to_string(kModelFileVersion) + "); use a newer Synaptic");
    const auto headerSize = getLE(bytes, 12, 4);
    const auto weightsSize = getLE(bytes, 16, 8);
    if (headerSize > bytes.size() || weightsSize > bytes.size() || kFixed + headerSize + weightsSize + 4 != bytes.size())
        bad(path, "truncated or padded: the header announces " + std::to_string(kFixed + headerSize + weightsSize + 4) +
                      " bytes, the file has " + std::to_string(bytes.size()));
    const std::size_t crcAt = bytes.size() - 4;
    if (modelFileCrc(bytes.substr(0, crcAt)) != std::uint32_t(getLE(bytes, crcAt, 4)))
        bad(path, "checksum mismatch (the file is damaged)");

    // Everything is read and checked before the model is touched: any
    // problem leaves `model` as it was. The CRC catches damage, not intent:
    // the LibTorch archive reader is not hardened against crafted files, so
    // a model file is a trusted input (like a checkpoint), unlike a recording.
    ModelFileInfo info;
    try {
        const json header = json::parse(bytes.substr(kFixed, headerSize));
        if (!header.is_object())
            bad(path, "header is not a JSON object");
        info.source = header.value("source", std::string());
        // null (NaN written by an older build) reads as unknown too.
        auto accuracy = [&](const char *key) {
            const auto it = header.find(key);
            return it != header.end() && it->is_number() ? it->get<double>() : -1.0;
        };
        info.testAccuracy = accuracy("test_accuracy");
        info.exitTestAccuracy = accuracy("exit_test_accuracy");
        info.savedAt = header.value("saved_at", std::string());
    } catch (const json::exception &e) {
        bad(path, std::string("header is not valid: ") + e.what());
    }
    torch::serialize::InputArchive archive;
    try {
        std::istringstream weights(bytes.substr(kFixed + headerSize, weightsSize));
        archive.load_from(weights);
    } catch (const c10::Error &e) {
        bad(path, "the weights cannot be read: " + std::string(e.what_without_backtrace()));
    } catch (const std::exception &e) {
        bad(path, std::string("the weights cannot be read: ") + e.what());
    }
    std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
    for (const auto &[name, t] : tensorsOf(model)) {
        torch::Tensor stored;
        try {
            if (!archive.try_read(name, stored, /*is_buffer=*/true))
                bad(path, "tensor '" + name + "' is missing: the file holds another model architecture");
            if (stored.layout() != torch::kStrided || stored.is_floating_point() != t.is_floating_point() ||
                stored.is_complex())
                bad(path, "tensor '" + name + "' has dtype " + std::string(c10::toString(stored.scalar_type())) +
                              ", this build's model has " + std::string(c10::toString(t.scalar_type())));
            if (stored.sizes() != t.sizes())
                bad(path, "tensor '" + name + "' has shape " + c10::str(stored.sizes()) +
                              ", this build's model has " + c10::str(t.sizes()) + ": another model architecture");
            stored = stored.to(t.device(), t.scalar_type()).contiguous();
        } catch (const c10::Error &e) {
            bad(path, "tensor '" + name + "' cannot be read: " + std::string(e.what_without_backtrace()));
        }
        copies.emplace_back(t, stored);
    }
    torch::NoGradGuard noGrad;
    for (auto &[target, stored] : copies)
        target.copy_(stored);
    return info;
}

} // namespace synaptic::engine
