#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace synaptic::data {

// Where Debian's fortune packages install their files.
inline constexpr const char *kDefaultFortuneDir = "/usr/share/games/fortunes";

// One language of the language-identification task: the Debian package that
// ships it and where its files lie under the fortune folder. A path naming a
// folder means every regular file directly in it (not sub-folders: es/off holds
// the offensive set); the .dat index files, the .u8 names (symlinks or empty
// placeholders for the same text) and symlinks are skipped.
struct FortuneLanguage {
    std::string code;    // "en", "de", ... (the label's name)
    std::string name;    // "English"
    std::string package; // "fortunes-de": what to install when it is missing
    std::vector<std::string> paths;
};

// The twelve languages Debian ships fortunes in, in label order.
const std::vector<FortuneLanguage> &fortuneLanguages();

// Which languages have at least one fortune file under `dir` (issue 17 §3):
// the package recommends the fortune packages, so an install without
// recommends has none or some. Codes present in label order; the missing
// languages with the package each comes in. A folder that does not exist
// has every language missing.
struct FortuneAvailability {
    std::vector<std::string> present;
    std::vector<FortuneLanguage> missing;
};
FortuneAvailability fortuneAvailability(const std::string &dir);

struct TextSample {
    std::string text; // UTF-8, control characters and overstrikes removed
    int label = 0;    // index into TextCorpus::languages
};

struct SkippedFile {
    std::string path;
    std::string reason; // "not valid UTF-8 at byte 123", "cannot be read"
};

struct TextCorpus {
    std::vector<FortuneLanguage> languages;
    std::vector<TextSample> train;
    std::vector<TextSample> test;
    std::vector<SkippedFile> skipped;       // files read around, with why
    std::vector<std::size_t> filesRead;     // per language
    std::string source;                     // the folder, for messages

    std::size_t classCount() const { return languages.size(); }
};

struct FortuneOptions {
    // Share of each language's fortunes that goes to the test split, chosen by
    // a hash of the text: the split is the same on every machine and in every
    // run, and a fortune that two files share lands on one side only.
    double testFraction = 0.2;
    // Keep at most this many fortunes per language (0: all), chosen by the same
    // hash so the kept set spreads over every file. Bounds the largest classes
    // (Russian and German have ~20,000 each, Irish 158).
    std::size_t maxPerLanguage = 0;
    // Cut each fortune to this many code points (0: no cut).
    std::size_t maxCodePoints = 400;
    // Fortunes shorter than this (code points, after cleaning) are dropped.
    std::size_t minCodePoints = 8;
    // Language codes to load, in this order (empty: all twelve).
    std::vector<std::string> languages;
};

// The folder to read from: `explicitDir` if set, else $SYNAPTIC_FORTUNE_DIR,
// else kDefaultFortuneDir.
std::string resolveFortuneDir(const std::string &explicitDir);

// Loads and splits the corpus. A file that cannot be read or is not UTF-8 is
// skipped and listed in `skipped` by path and reason; a language with no
// readable file, a missing folder or an unknown code throws DataError naming
// the path and the Debian package to install.
TextCorpus loadFortuneCorpus(const std::string &dir, const FortuneOptions &options = {});

// The fortunes of one file's text: records separated by lines holding only
// "%", cleaned (backspace overstrikes resolved, control characters to spaces,
// runs of white space to one space, trimmed); empty records dropped.
std::vector<std::string> splitFortunes(const std::string &content);

// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF); otherwise false with the offset of the first byte of
// the first bad sequence.
bool isValidUtf8(const std::string &bytes, std::size_t *badOffset = nullptr);

// FNV-1a of the bytes: the split's and the n-gram hasher's hash.
std::uint64_t fnv1a(const char *data, std::size_t size, std::uint64_t seed = 1469598103934665603ULL);

} // namespace synaptic::data
