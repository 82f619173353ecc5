# Applies HEARTH_SANITIZE (e.g. "address;undefined") to everything built after this point.
if(HEARTH_SANITIZE)
    list(JOIN HEARTH_SANITIZE "," _hearth_san)
    add_compile_options(-fsanitize=${_hearth_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${_hearth_san})
endif()
