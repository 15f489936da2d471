# Warnings on for every target of ours; -Werror only where asked (CI uses GP_WERROR=ON).
option(GP_WERROR "Treat warnings as errors" OFF)
function(gp_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes
    -Wmissing-prototypes -Wno-unused-parameter -Wvla)
  if(GP_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
