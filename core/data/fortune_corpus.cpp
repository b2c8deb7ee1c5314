#include "fortune_corpus.h"

#include "data_error.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

namespace synaptic::data {

namespace fs = std::filesystem;

const std::vector<FortuneLanguage> &fortuneLanguages() {
    // English is the top-level files of `fortunes` and `fortunes-min` (the top
    // level also holds Chinese, Brazilian and symlinks into it/, so it is
    // listed file by file); ascii-art is pictures, not text.
    static const std::vector<FortuneLanguage> languages = {
        {"en", "English", "fortunes",
         {"fortunes", "literature", "riddles", "art", "computers", "cookie", "debian", "definitions",
          "disclaimer", "drugs", "education", "ethnic", "food", "goedel", "humorists", "kids", "knghtbrd",
          "law", "linux", "linuxcookie", "love", "magic", "medicine", "men-women", "miscellaneous", "news",
          "paradoxum", "people", "perl", "pets", "platitudes", "politics", "pratchett", "science",
          "songs-poems", "sports", "startrek", "tao", "translate-me", "wisdom", "work", "zippy"}},
        {"de", "German", "fortunes-de", {"de"}},
        {"es", "Spanish", "fortunes-es", {"es"}},
        {"it", "Italian", "fortunes-it", {"it"}},
        {"pl", "Polish", "fortunes-pl", {"pl"}},
        {"ru", "Russian", "fortunes-ru", {"ru"}},
        {"cs", "Czech", "fortunes-cs", {"cs"}},
        {"bg", "Bulgarian", "fortunes-bg", {"bg"}},
        {"pt", "Portuguese (Brazil)", "fortunes-br", {"brasil"}},
        {"eo", "Esperanto", "fortunes-eo", {"eo"}},
        {"ga", "Irish", "fortunes-ga", {"ga"}},
        {"zh", "Chinese", "fortunes-zh", {"chinese", "song100", "tang300"}},
    };
    return languages;
}

std::string resolveFortuneDir(const std::string &explicitDir) {
    if (!explicitDir.empty())
        return explicitDir;
    if (const char *env = std::getenv("SYNAPTIC_FORTUNE_DIR"); env && *env)
        return env;
    return kDefaultFortuneDir;
}

std::uint64_t fnv1a(const char *data, std::size_t size, std::uint64_t seed) {
    std::uint64_t h = seed;
    for (std::size_t i = 0; i < size; ++i) {
        h ^= std::uint8_t(data[i]);
        h *= 1099511628211ULL;
    }
    return h;
}

bool isValidUtf8(const std::string &bytes, std::size_t *badOffset) {
    const auto *s = reinterpret_cast<const unsigned char *>(bytes.data());
    const std::size_t n = bytes.size();
    std::size_t i = 0;
    auto fail = [&](std::size_t at) {
        if (badOffset)
            *badOffset = at;
        return false;
    };
    while (i < n) {
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int length = 0;
        std::uint32_t cp = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            cp = c & 0x07;
        } else {
            return fail(i); // a continuation byte, C0/C1 (overlong) or F5..FF
        }
        if (i + std::size_t(length) > n)
            return fail(i);
        for (int k = 1; k < length; ++k) {
            if ((s[i + std::size_t(k)] & 0xC0) != 0x80)
                return fail(i); // the sequence that starts here is broken
            cp = (cp << 6) | (s[i + std::size_t(k)] & 0x3F);
        }
        const bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
        if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
            return fail(i);
        i += std::size_t(length);
    }
    return true;
}

namespace {

// Cleans one record: "x\bx" and "_\bx" overstrikes keep the last character,
// control characters become spaces, white space runs collapse. Works on bytes:
// every byte below 0x20 is ASCII, so multi-byte sequences pass through whole.
std::string cleanFortune(const std::string &raw) {
    std::string resolved;
    resolved.reserve(raw.size());
    for (char c : raw) {
        if (c == '\b') {
            // Drop the previous character, and the whole code point if it is multi-byte.
            while (!resolved.empty() && (std::uint8_t(resolved.back()) & 0xC0) == 0x80)
                resolved.pop_back();
            if (!resolved.empty())
                resolved.pop_back();
            continue;
        }
        resolved.push_back(c);
    }
    std::string out;
    out.reserve(resolved.size());
    bool space = false;
    for (char c : resolved) {
        const bool control = std::uint8_t(c) < 0x20 || c == 0x7F;
        if (control || c == ' ') {
            space = !out.empty();
            continue;
        }
        if (space)
            out.push_back(' ');
        space = false;
        out.push_back(c);
    }
    return out;
}

std::size_t codePoints(const std::string &s) {
    return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (std::uint8_t(c) & 0xC0) != 0x80; }));
}

std::string firstCodePoints(const std::string &s, std::size_t count) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if ((std::uint8_t(s[i]) & 0xC0) != 0x80 && seen++ == count)
            return s.substr(0, i);
    }
    return s;
}

bool isFortuneFile(const fs::directory_entry &entry) {
    if (entry.is_symlink() || !entry.is_regular_file())
        return false;
    const std::string name = entry.path().filename().string();
    auto endsWith = [&](const std::string &suffix) {
        return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return !endsWith(".dat") && !endsWith(".u8") && !name.starts_with(".");
}

// The files a language's paths name, sorted so the load order never depends
// on the file system's.
std::vector<fs::path> filesOf(const fs::path &root, const FortuneLanguage &language) {
    std::vector<fs::path> files;
    for (const auto &relative : language.paths) {
        const fs::path path = root / relative;
        std::error_code ec;
        if (fs::is_directory(path, ec)) {
            // increment(ec), not ++: a folder that fails mid-listing ends the
            // listing instead of throwing out of a GUI slot.
            for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
                if (isFortuneFile(*it))
                    files.push_back(it->path());
        } else if (fs::exists(path, ec)) {
            files.push_back(path);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

std::vector<std::string> splitFortunes(const std::string &content) {
    std::vector<std::string> records;
    std::string current;
    std::istringstream in(content);
    std::string line;
    auto flush = [&] {
        std::string cleaned = cleanFortune(current);
        if (!cleaned.empty())
            records.push_back(std::move(cleaned));
        current.clear();
    };
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line == "%") {
            flush();
            continue;
        }
        current += line;
        current += '\n';
    }
    flush();
    return records;
}

FortuneAvailability fortuneAvailability(const std::string &dir) {
    FortuneAvailability out;
    for (const auto &language : fortuneLanguages()) {
        if (filesOf(fs::path(dir), language).empty())
            out.missing.push_back(language);
        else
            out.present.push_back(language.code);
    }
    return out;
}

TextCorpus loadFortuneCorpus(const std::string &dir, const FortuneOptions &options) {
    const fs::path root(dir);
    std::error_code ec;
    if (!fs::is_directory(root, ec))
        throw DataError(dir, "no such folder; install Debian's fortune packages (fortunes, fortunes-de, ...) "
                             "or set SYNAPTIC_FORTUNE_DIR");
    if (!(options.testFraction > 0.0 && options.testFraction < 1.0))
        throw DataError(dir, "test fraction " + std::to_string(options.testFraction) + " is not in (0, 1)");

    TextCorpus corpus;
    corpus.source = dir;
    if (options.languages.empty()) {
        corpus.languages = fortuneLanguages();
    } else {
        for (const auto &code : options.languages) {
            const auto &all = fortuneLanguages();
            const auto it = std::find_if(all.begin(), all.end(), [&](const auto &l) { return l.code == code; });
            if (it == all.end())
                throw DataError(dir, "unknown language code '" + code + "'");
            corpus.languages.push_back(*it);
        }
    }

    const auto threshold = std::uint64_t(options.testFraction * 1e6);
    for (std::size_t label = 0; label < corpus.languages.size(); ++label) {
        const FortuneLanguage &language = corpus.languages[label];
        std::size_t read = 0;
        // Keyed by the text's hash: duplicates inside a language collapse, and
        // the map's order is the hash order the cap and the split use.
        std::map<std::uint64_t, std::string> fortunes;
        for (const auto &file : filesOf(root, language)) {
            std::ifstream in(file, std::ios::binary);
            if (!in.is_open()) {
                corpus.skipped.push_back({file.string(), "cannot be opened"});
                continue;
            }
            std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (in.bad()) {
                corpus.skipped.push_back({file.string(), "cannot be read"});
                continue;
            }
            std::size_t bad = 0;
            if (!isValidUtf8(content, &bad)) {
                corpus.skipped.push_back({file.string(), "not valid UTF-8 at byte " + std::to_string(bad)});
                continue;
            }
            ++read;
            for (auto &text : splitFortunes(content)) {
                if (options.maxCodePoints > 0)
                    text = firstCodePoints(text, options.maxCodePoints);
                if (codePoints(text) < options.minCodePoints)
                    continue;
                fortunes.emplace(fnv1a(text.data(), text.size()), std::move(text));
            }
        }
        corpus.filesRead.push_back(read);
        if (fortunes.empty()) {
            std::string skippedHere;
            for (const auto &s : corpus.skipped)
                if (s.path.starts_with((root / language.paths.front()).string()) || language.paths.size() > 1)
                    skippedHere += "; " + s.path + ": " + s.reason;
            throw DataError((root / language.paths.front()).string(),
                            "no readable fortunes for " + language.name +
                                (skippedHere.empty() ? "; install the Debian package " + language.package
                                                     : " (every file was skipped" + skippedHere + ")"));
        }
        std::size_t kept = 0;
        for (auto &[hash, text] : fortunes) {
            if (options.maxPerLanguage > 0 && kept++ >= options.maxPerLanguage)
                break;
            // A second hash for the split: the map's order (the first) picks
            // the capped subset, so the split must not depend on that order.
            const bool test = fnv1a(text.data(), text.size(), hash) % 1000000 < threshold;
            (test ? corpus.test : corpus.train).push_back({std::move(text), int(label)});
        }
    }
    return corpus;
}

} // namespace synaptic::data
