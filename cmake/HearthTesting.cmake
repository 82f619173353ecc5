# Test helpers shared by every tests/ folder.
find_package(GTest REQUIRED)
include(GoogleTest)

# Where the external reference data (../shared beside the checkout) lives. Tests read
# HEARTH_SHARED_DIR from the environment first and skip cleanly when the folder is absent.
# -DHEARTH_SHARED_DIR=... points elsewhere (scripts/gpu-check.sh on a machine where only the
# checkout travels).
if(NOT HEARTH_SHARED_DIR)
    get_filename_component(HEARTH_SHARED_DIR "${CMAKE_SOURCE_DIR}/../shared" ABSOLUTE)
endif()

# hearth_add_gtest(NAME name SOURCES ... [LIBS ...] [LABELS ...] [TIMEOUT s] [OWN_MAIN])
# OWN_MAIN: one of the SOURCES defines main() (instead of gtest's).
function(hearth_add_gtest)
    cmake_parse_arguments(T "OWN_MAIN" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
    add_executable(${T_NAME} ${T_SOURCES})
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} hearth_test_support GTest::gtest)
    if(NOT T_OWN_MAIN)
        target_link_libraries(${T_NAME} PRIVATE GTest::gtest_main)
    endif()
    hearth_set_warnings(${T_NAME})
    if(NOT T_TIMEOUT)
        set(T_TIMEOUT 300)
    endif()
    # ThreadSanitizer runs the engine 5-15x slower (the session test takes ~4 min on its own).
    if(HEARTH_SANITIZE STREQUAL "thread")
        math(EXPR T_TIMEOUT "${T_TIMEOUT} * 8")
    endif()
    # AddressSanitizer about 2-3x (cpu_kernels_test: 140 s in the ci build, past 300 s under ASan
    # on a loaded 2-core machine).
    if("address" IN_LIST HEARTH_SANITIZE)
        math(EXPR T_TIMEOUT "${T_TIMEOUT} * 3")
    endif()
    # One CTest entry per executable keeps CTest's overhead low; gtest reports each case.
    add_test(NAME ${T_NAME} COMMAND ${T_NAME} --gtest_brief=0)
    set_tests_properties(${T_NAME} PROPERTIES
        LABELS "${T_LABELS}"
        TIMEOUT ${T_TIMEOUT}
        ENVIRONMENT "HEARTH_SHARED_DIR=${HEARTH_SHARED_DIR};HEARTH_BACKEND_PATH=${HEARTH_BIN_DIR}")
    # Backend plugins (hearth-backend-ref, -cuda, -vulkan) are found through HEARTH_BACKEND_PATH.
    foreach(plugin ref cuda vulkan)
        if(TARGET hearth-backend-${plugin})
            add_dependencies(${T_NAME} hearth-backend-${plugin})
        endif()
    endforeach()
endfunction()
