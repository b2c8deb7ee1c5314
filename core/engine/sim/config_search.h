#pragma once

#include <string>
#include <vector>

namespace synaptic::engine {

// Where a config named without a folder is looked for (issue 17 §2), in
// order: the user's ($XDG_CONFIG_HOME/synaptic, by default
// ~/.config/synaptic), then the shipped ones in every $XDG_DATA_DIRS entry's
// synaptic folder (by default /usr/local/share/synaptic and
// /usr/share/synaptic, where the package installs default_cluster.json).
std::vector<std::string> configSearchDirs();

// `given` if it names a file that exists, or has a folder in it; a bare name
// ("langid_cluster", "mine.json") is looked up in the working folder, then
// in configSearchDirs(), with ".json" added when it has no extension.
// Returns the path to read; throws ConfigError listing where it looked when
// a bare name is nowhere.
std::string resolveConfigPath(const std::string &given);

// One line for --help: the folders above, as this environment sets them.
std::string configSearchHelp();

// The user's own folder, $XDG_CONFIG_HOME/synaptic (by default
// ~/.config/synaptic): configs, and the app's layouts under layouts/.
std::string userConfigDir();

} // namespace synaptic::engine
