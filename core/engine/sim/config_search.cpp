#include "config_search.h"

#include "core/engine/config_error.h"

#include <cstdlib>
#include <filesystem>

namespace synaptic::engine {

namespace fs = std::filesystem;

namespace {
// An XDG variable, or its default when unset or empty (the spec says both).
std::string xdg(const char *name, const std::string &fallback) {
    const char *v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

std::string home() {
    const char *h = std::getenv("HOME");
    return h && *h ? std::string(h) : std::string();
}
} // namespace

std::string userConfigDir() {
    std::string configHome = xdg("XDG_CONFIG_HOME", "");
    if (configHome.empty() || configHome.front() != '/') // unset or relative: the spec's default
        configHome = home().empty() ? "" : home() + "/.config";
    return configHome.empty() ? std::string() : configHome + "/synaptic";
}

std::vector<std::string> configSearchDirs() {
    std::vector<std::string> dirs;
    if (const auto user = userConfigDir(); !user.empty())
        dirs.push_back(user);
    const std::string dataDirs = xdg("XDG_DATA_DIRS", "/usr/local/share/:/usr/share/");
    std::size_t start = 0;
    while (start <= dataDirs.size()) {
        const auto colon = dataDirs.find(':', start);
        std::string dir = dataDirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
        while (dir.size() > 1 && dir.back() == '/')
            dir.pop_back();
        if (!dir.empty() && dir.front() == '/') // relative entries are ignored, as the XDG spec says
            dirs.push_back(dir + "/synaptic");
        if (colon == std::string::npos)
            break;
        start = colon + 1;
    }
    return dirs;
}

std::string resolveConfigPath(const std::string &given) {
    const fs::path asGiven(given);
    std::error_code ec;
    if (given.empty() || fs::exists(asGiven, ec) || asGiven.has_parent_path())
        return given; // the reader names it if it cannot open it
    std::vector<std::string> names{given};
    if (!asGiven.has_extension())
        names.push_back(given + ".json");
    std::vector<std::string> dirs{"."};
    for (const auto &d : configSearchDirs())
        dirs.push_back(d);
    for (const auto &dir : dirs)
        for (const auto &name : names) {
            const fs::path candidate = fs::path(dir) / name;
            if (fs::is_regular_file(candidate, ec))
                return dir == "." ? name : candidate.string();
        }
    std::string looked;
    for (const auto &dir : dirs)
        looked += (looked.empty() ? "" : ", ") + (dir == "." ? std::string("the working folder") : dir);
    throw ConfigError(given, "no such config file (looked in " + looked + ")");
}

std::string configSearchHelp() {
    std::string out = "a config named without a folder is looked up in the working folder";
    for (const auto &d : configSearchDirs())
        out += ", then " + d;
    return out;
}

} // namespace synaptic::engine
