// The Vulkan device and its stream (vk_device.cpp, vk_stream.cpp).
#pragma once

#include <memory>

#include "hearth/backend/device.h"
#include "vk_context.h"

namespace hearth::backend::vk {

Result<std::unique_ptr<Stream>> make_stream(std::shared_ptr<Context> ctx);
std::unique_ptr<Device> make_device(std::shared_ptr<Context> ctx);

}  // namespace hearth::backend::vk
