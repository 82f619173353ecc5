// The folder the backend plugins keep their caches in between starts (the Vulkan pipeline
// cache). The plugins are Qt-free and read HEARTH_CACHE_DIR; main() calls this once, before
// any thread is started, so the variable is set before a plugin (or anything else) reads the
// environment. An environment variable rather than a load option because the cache belongs to
// the process, not to one model load, and a load option would have to cross the plugin's C
// entry table (an ABI change) to reach device creation.
#pragma once

#include <QString>

namespace hearth::app {

// Sets HEARTH_CACHE_DIR unless it is set already (the user's choice wins): to `dataDir`/cache
// when the data folder was given on the command line (a portable or test folder keeps
// everything inside it, beside the INT4 conversions), else to the platform's cache folder
// (QStandardPaths::CacheLocation). Returns the folder in effect.
QString exportBackendCacheDir(const QString& dataDirOption);

}  // namespace hearth::app
