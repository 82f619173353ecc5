# hearth_set_warnings(target): the project's warning set, errors with HEARTH_WERROR.
function(hearth_set_warnings target)
    if(MSVC)
        target_compile_options(${target} PRIVATE /W4)
        if(HEARTH_WERROR)
            target_compile_options(${target} PRIVATE /WX)
        endif()
    else()
        # nvcc takes host-compiler warnings through -Xcompiler (CUDA sources of the plugin; the
        # host pass of __host__ __device__ code sees #pragma unroll, which is for the device).
        target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra>
            $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-unknown-pragmas>)
        if(HEARTH_WERROR)
            target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>
                $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
        endif()
    endif()
endfunction()
