# Decides which optional GPU backends are built. AUTO builds a backend when its source folder
# (backends/vulkan, backends/cuda) and its toolchain are both there, and says clearly why it is
# skipped when not; ON makes either one missing an error. HEARTH_HAVE_* (and so configure's
# summary, version.h and the About dialog) say ON only for a backend that is really built.

# Reports a backend that is not built; with its option ON that is an error.
function(hearth_skip_backend label option why)
    if(${option} STREQUAL "ON")
        message(FATAL_ERROR "Hearth: ${option}=ON but ${why}")
    endif()
    message(STATUS "Hearth: ${label} backend skipped: ${why}")
endfunction()

set(HEARTH_HAVE_VULKAN OFF)
if(HEARTH_VULKAN STREQUAL "OFF")
    hearth_skip_backend(Vulkan HEARTH_VULKAN "HEARTH_VULKAN=OFF")
elseif(NOT EXISTS "${CMAKE_SOURCE_DIR}/backends/vulkan/CMakeLists.txt")
    hearth_skip_backend(Vulkan HEARTH_VULKAN
        "no Vulkan backend is written yet (backends/vulkan does not exist)")
else()
    find_package(Vulkan QUIET COMPONENTS glslc)
    if(Vulkan_FOUND AND TARGET Vulkan::glslc)
        set(HEARTH_HAVE_VULKAN ON)
        message(STATUS "Hearth: Vulkan backend ON (loader ${Vulkan_VERSION}, glslc ${Vulkan_GLSLC_EXECUTABLE})")
    else()
        hearth_skip_backend(Vulkan HEARTH_VULKAN
            "Vulkan headers/loader or glslc not found (Debian: libvulkan-dev glslc)")
    endif()
endif()

set(HEARTH_HAVE_CUDA OFF)
if(HEARTH_CUDA STREQUAL "OFF")
    hearth_skip_backend(CUDA HEARTH_CUDA "HEARTH_CUDA=OFF")
elseif(NOT EXISTS "${CMAKE_SOURCE_DIR}/backends/cuda/CMakeLists.txt")
    hearth_skip_backend(CUDA HEARTH_CUDA
        "no CUDA backend is written yet (backends/cuda does not exist)")
else()
    # CMake 3.25 finds nvcc only through PATH; look in the usual install places too.
    find_program(HEARTH_NVCC nvcc PATHS /usr/local/cuda/bin ENV CUDA_HOME PATH_SUFFIXES bin)
    if(HEARTH_NVCC AND NOT CMAKE_CUDA_COMPILER)
        set(CMAKE_CUDA_COMPILER "${HEARTH_NVCC}" CACHE FILEPATH "CUDA compiler")
    endif()
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
        set(HEARTH_HAVE_CUDA ON)
        # Which GPUs the plugin carries machine code for. CI and development builds compile one
        # architecture (sm_90, the H200 of the GPU checks) to keep the build short;
        # HEARTH_CUDA_RELEASE_ARCHS builds what users get: SASS for Turing through Blackwell
        # plus PTX for GPUs newer than the toolkit. scripts/gpu-check.sh passes the present
        # GPU's architecture.
        option(HEARTH_CUDA_RELEASE_ARCHS "Build CUDA kernels for sm_75/80/86/89/90/120 + PTX" OFF)
        set(HEARTH_CUDA_ARCHITECTURES "90" CACHE STRING
            "CUDA architectures of the plugin (CMAKE_CUDA_ARCHITECTURES syntax)")
        if(HEARTH_CUDA_RELEASE_ARCHS)
            set(HEARTH_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;120-real;120-virtual")
        endif()
        if(NOT CMAKE_CUDA_ARCHITECTURES)
            set(CMAKE_CUDA_ARCHITECTURES "${HEARTH_CUDA_ARCHITECTURES}")
        endif()
        # Enabled here, at the top level, so the plugin and its tests can both compile CUDA.
        enable_language(CUDA)
        # CMake 3.25 knows nvcc's -std flags only up to C++17 (nvcc 12+ takes c++20).
        set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
        set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
        if(HEARTH_CCACHE AND HEARTH_CCACHE_PROGRAM)
            set(CMAKE_CUDA_COMPILER_LAUNCHER ${_hearth_launcher})
        endif()
        message(STATUS "Hearth: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER}, "
                       "architectures ${HEARTH_CUDA_ARCHITECTURES}; the plugin loads only "
                       "where an NVIDIA driver is installed)")
    else()
        hearth_skip_backend(CUDA HEARTH_CUDA
            "nvcc not found (install the CUDA toolkit or set CUDA_HOME)")
    endif()
endif()
