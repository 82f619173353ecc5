#include <gtest/gtest.h>
TEST(Checked, Placeholder) {
    SUCCEED();
}
