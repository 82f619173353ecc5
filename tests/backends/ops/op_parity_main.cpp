// The op-parity suite's main: gtest's, except where a Vulkan device is under test, there the
// process ends with _Exit once gtest has printed its results, skipping the static destructors.
// With NVIDIA's Vulkan driver (an H200, 2026-12-04) the suite ran its cases and then the process
// aborted in gtest's own teardown: "pthread_key_delete(key_) failed with error 22", the key of
// one of gtest's thread-locals no longer valid by then. The same executable exits cleanly on
// lavapipe and on the CUDA device, and elsewhere the normal exit (with LeakSanitizer's check)
// is kept.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    const int rc = RUN_ALL_TESTS();
    const char* devices = std::getenv("HEARTH_TEST_DEVICES");
    if (devices && std::string_view(devices).find("vulkan") != std::string_view::npos) {
        std::fflush(nullptr);
        std::_Exit(rc);
    }
    return rc;
}
