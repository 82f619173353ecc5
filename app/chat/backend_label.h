// How a backend and its device read in the model badge and the backend tip.
#pragma once

#include <QString>

namespace hearth::app {

// A backend or device name ("cuda", "vulkan1", "ref") as people read it.
QString backendLabel(const QString& name);

// The badge: the backend, then for an accelerator the hardware part of the engine's device
// description (" + " joins the CPU's description with a split; " · " separates its fields):
// "Vulkan · llvmpipe (LLVM 15.0.6, 256 bits)" (the driver, heaps and features follow), and
// "CUDA · NVIDIA H200 · 139.8 GiB" (the GPU and its memory; sm, SMs and driver follow).
QString badgeLabel(const QString& used, const QString& device);

}  // namespace hearth::app
