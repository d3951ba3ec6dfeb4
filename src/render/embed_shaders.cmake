# Turns shader sources into one C file of NUL-terminated byte arrays, so the program finds its
# shaders wherever it runs. Usage: cmake -DOUT=file.c -DSOURCES="a.vert;b.frag" -P embed_shaders.cmake
set(body "/* Generated from shaders/ by embed_shaders.cmake: do not edit. */\n")
foreach(src ${SOURCES})
    get_filename_component(name ${src} NAME)
    string(MAKE_C_IDENTIFIER "render_shader_${name}" ident)
    file(READ ${src} hex HEX)
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    string(APPEND body "const char ${ident}[] = { ${bytes} 0x00 };\n")
endforeach()
file(WRITE ${OUT}.tmp "${body}")
file(RENAME ${OUT}.tmp ${OUT})
