# Runs `hearth --screenshot` for: the empty state in both themes, a chat with a code block
# (--demo-chat seeds a data folder), the settings panel (--show settings), and the chat in the
# dark theme; checks that real PNGs come out.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")

function(shot name)
    set(png "${OUT}/${name}.png")
    execute_process(
        COMMAND "${HEARTH}" ${ARGN} --screenshot "${png}"
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "hearth --screenshot (${name}) failed with ${rc}:\n${out}\n${err}")
    endif()
    if(NOT EXISTS "${png}")
        message(FATAL_ERROR "no screenshot written at ${png}")
    endif()
    file(READ "${png}" head LIMIT 8 HEX)
    if(NOT head STREQUAL "89504e470d0a1a0a")
        message(FATAL_ERROR "${png} is not a PNG (starts with ${head})")
    endif()
    file(SIZE "${png}" size)
    if(size LESS 5000)
        message(FATAL_ERROR "${png} is suspiciously small (${size} bytes): blank window?")
    endif()
    message(STATUS "${png}: ${size} bytes")
endfunction()

foreach(theme light dark)
    shot(empty-state-${theme} --data-dir "${OUT}/data-empty-${theme}" --theme ${theme})
    shot(chat-code-block-${theme} --data-dir "${OUT}/data-chat-${theme}" --theme ${theme} --demo-chat)
    shot(settings-${theme} --data-dir "${OUT}/data-settings-${theme}" --theme ${theme} --show settings)
endforeach()
