#include <gtest/gtest.h>
TEST(Roundtrip, Placeholder) {
    SUCCEED();
}
