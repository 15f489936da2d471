# Embed data files into the binary: each file becomes a NUL-terminated byte array in one
# generated C file, with a table { name, bytes, size } the library looks up by name.
function(gp_embed_files out_var out_file)
  set(inputs)
  foreach(f ${ARGN})
    list(APPEND inputs ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  string(REPLACE ";" "|" files_arg "${ARGN}")
  add_custom_command(OUTPUT ${out_file}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_file} -DBASE=${CMAKE_CURRENT_SOURCE_DIR}
            -DFILES=${files_arg} -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/EmbedScript.cmake
    DEPENDS ${inputs} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/EmbedScript.cmake
    COMMENT "Embedding data files" VERBATIM)
  set(${out_var} ${out_file} PARENT_SCOPE)
endfunction()

# The same for a second set of files, in its own table: gp_embed_files_as(OUT_VAR OUT_FILE
# TABLE ROW HEADER files...) names the generated table TABLE of rows of type ROW (a struct
# { name, bytes, size }) and includes HEADER (which must declare ROW and TABLE). The web page's
# files use it (src/server/, with a row type of its own: a front end names nothing private).
function(gp_embed_files_as out_var out_file table row header)
  set(inputs)
  foreach(f ${ARGN})
    list(APPEND inputs ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  string(REPLACE ";" "|" files_arg "${ARGN}")
  add_custom_command(OUTPUT ${out_file}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_file} -DBASE=${CMAKE_CURRENT_SOURCE_DIR}
            -DFILES=${files_arg} -DTABLE=${table} -DROW=${row} -DHEADER=${header}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/EmbedScript.cmake
    DEPENDS ${inputs} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/EmbedScript.cmake
    COMMENT "Embedding ${table}" VERBATIM)
  set(${out_var} ${out_file} PARENT_SCOPE)
endfunction()
