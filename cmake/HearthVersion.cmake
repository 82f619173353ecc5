# Build information shown by --version and the About dialog.
find_package(Git QUIET)
set(HEARTH_GIT_COMMIT "unknown")
if(GIT_FOUND AND EXISTS "${CMAKE_SOURCE_DIR}/.git")
    execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
        WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
        OUTPUT_VARIABLE _hearth_commit OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_QUIET RESULT_VARIABLE _hearth_git_rc)
    if(_hearth_git_rc EQUAL 0 AND _hearth_commit)
        set(HEARTH_GIT_COMMIT "${_hearth_commit}")
    endif()
endif()
set(HEARTH_BUILD_TYPE "${CMAKE_BUILD_TYPE}")
if(NOT HEARTH_BUILD_TYPE)
    set(HEARTH_BUILD_TYPE "default")
endif()
if(HEARTH_HAVE_VULKAN)
    set(HEARTH_HAVE_VULKAN_INT 1)
else()
    set(HEARTH_HAVE_VULKAN_INT 0)
endif()
if(HEARTH_HAVE_CUDA)
    set(HEARTH_HAVE_CUDA_INT 1)
else()
    set(HEARTH_HAVE_CUDA_INT 0)
endif()
set(HEARTH_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
configure_file("${CMAKE_SOURCE_DIR}/engine/include/hearth/version.h.in"
               "${CMAKE_BINARY_DIR}/generated/hearth/version.h" @ONLY)
