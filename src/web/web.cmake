# The page (docs/web.md): the viewer's libraries compiled by emscripten into pmfview.js
# (single-threaded: the chunks stream on the page's thread within the frame budget) or, with
# PMFVIEW_WEB_THREADS, pmfview-mt.js (worker threads, where the host sends COOP/COEP); page.js
# picks one at run time. scripts/web.sh configures both with emcmake and PMFVIEW_WEB_DEPS, the
# prefix web_deps.sh built. (Objects compiled for threads do not run in a module without them:
# thread-local storage faults, hence two builds.)
if(NOT PMFVIEW_WEB_DEPS)
    message(FATAL_ERROR "PMFVIEW_WEB_DEPS: the prefix of scripts/web_deps.sh (build with scripts/web.sh)")
endif()

option(PMFVIEW_WEB_THREADS "Build pmfview-mt.js, the page with worker threads" OFF)
if(PMFVIEW_WEB_THREADS)
    add_compile_options(-pthread)
endif()

# cglm and stb are header-only: Debian's headers serve, seen through links so that the rest of
# /usr/include (glibc's) stays out of emscripten's way.
set(WEB_SYSINC ${CMAKE_BINARY_DIR}/sysinc)
file(MAKE_DIRECTORY ${WEB_SYSINC})
file(CREATE_LINK /usr/include/cglm ${WEB_SYSINC}/cglm SYMBOLIC)
file(CREATE_LINK /usr/include/stb ${WEB_SYSINC}/stb SYMBOLIC)
include_directories(SYSTEM ${WEB_SYSINC})    # as /usr/include is for the Linux build

function(web_dependency name)
    add_library(${name} INTERFACE IMPORTED)
    set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${ARGV2}")
    if(ARGV1)
        set_target_properties(${name} PROPERTIES INTERFACE_LINK_LIBRARIES "${ARGV1}")
    endif()
endfunction()
set(D ${PMFVIEW_WEB_DEPS})
web_dependency(Threads::Threads "" "")
web_dependency(PkgConfig::LZ4 ${D}/lib/liblz4.a ${D}/include)
web_dependency(PkgConfig::PNG "${D}/lib/libpng16.a;${D}/lib/libz.a" ${D}/include)
web_dependency(PkgConfig::JPEG ${D}/lib/libjpeg.a ${D}/include)
web_dependency(PkgConfig::CJSON ${D}/lib/libcjson.a ${D}/include)
web_dependency(PkgConfig::CGLM "" ${WEB_SYSINC})
web_dependency(PkgConfig::STB "" ${WEB_SYSINC}/stb)

set(PMFVIEW_SHADER_DIR ${CMAKE_SOURCE_DIR}/shaders)
foreach(dir base pmf map bsp rmf wad rad pak mdl studio spr fgd formats res mesh raytrace compiler stream render scene)
    add_subdirectory(src/${dir})
endforeach()
add_library(web_stb STATIC src/web/stb_impl.c)
target_compile_options(web_stb PRIVATE -Wno-unused-function)
target_link_libraries(web_stb PRIVATE PkgConfig::STB)
target_compile_definitions(pmfc_lib PRIVATE stbi_load=pmfc_stbi_load stbi_load_from_memory=pmfc_stbi_load_from_memory
                           stbi_image_free=pmfc_stbi_image_free
                           stbi_failure_reason=pmfc_stbi_failure_reason)
target_link_libraries(pmfc_lib PUBLIC web_stb)

set(WEB_DIR ${CMAKE_SOURCE_DIR}/src/web)
set(WEB_LINK_OPTIONS
    -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2 -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB
    -sINITIAL_MEMORY=64MB -sENVIRONMENT=web,worker -sEXIT_RUNTIME=0
    "-sEXPORTED_FUNCTIONS=@${WEB_DIR}/exports.txt"
    "-sEXPORTED_RUNTIME_METHODS=FS,ccall,cwrap,UTF8ToString,HEAPU8,HEAPF64"
    -sMODULARIZE=1 -sEXPORT_NAME=createPmfview)
# the surface inspector and the markers of missing models are the desktop's (src/app/overlays over
# the scene)
add_executable(pmfview_page ${WEB_DIR}/page.c ${CMAKE_SOURCE_DIR}/src/app/overlays/inspect.c
               ${CMAKE_SOURCE_DIR}/src/app/overlays/map_markers.c ${CMAKE_SOURCE_DIR}/src/app/common/json_text.c)
target_include_directories(pmfview_page PRIVATE ${CMAKE_SOURCE_DIR}/src/app ${CMAKE_SOURCE_DIR}/src/app/overlays
                           ${CMAKE_SOURCE_DIR}/src/app/common)
target_link_libraries(pmfview_page PRIVATE scene pmfc_lib PkgConfig::CJSON PkgConfig::CGLM)
target_link_options(pmfview_page PRIVATE ${WEB_LINK_OPTIONS})
if(PMFVIEW_WEB_THREADS)
    target_compile_definitions(pmfview_page PRIVATE PAGE_THREADS=1)
    target_link_options(pmfview_page PRIVATE -pthread -sPTHREAD_POOL_SIZE=4 -Wno-pthreads-mem-growth)
    set_target_properties(pmfview_page PROPERTIES OUTPUT_NAME pmfview-mt)
else()
    target_compile_definitions(pmfview_page PRIVATE PAGE_THREADS=0)
    set_target_properties(pmfview_page PROPERTIES OUTPUT_NAME pmfview)
endif()
