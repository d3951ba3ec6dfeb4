# The Windows build's run-time files and its zip (scripts/windows.sh): SDL2.dll beside the
# programs, and build-win/pmfview-VERSION-windows-x86_64.zip with the programs, SDL2.dll, the demo
# maps the window opens by default, the docs and the licences of everything linked in.
set(PMFVIEW_SDL2_DLL "" CACHE FILEPATH "SDL2.dll built from Debian's libsdl2 source")
set(PMFVIEW_LICENCES "" CACHE STRING "Licence files (Debian copyright files) of the dependencies")
if(PMFVIEW_SDL2_DLL)
    file(COPY ${PMFVIEW_SDL2_DLL} DESTINATION ${CMAKE_BINARY_DIR})
endif()

set(zip_name pmfview-${PROJECT_VERSION}-windows-x86_64)
set(stage ${CMAKE_BINARY_DIR}/${zip_name})
file(GLOB package_docs ${CMAKE_SOURCE_DIR}/docs/*.md)
# Linked in statically: zlib, mingw-w64's runtime and winpthreads, libgcc.
set(package_licences ${PMFVIEW_LICENCES})
foreach(pair "zlib:/usr/share/doc/libz-mingw-w64-dev/copyright"
             "mingw-w64:/usr/share/doc/mingw-w64-x86-64-dev/copyright"
             "gcc-runtime:/usr/share/doc/gcc-mingw-w64-x86-64-posix-runtime/copyright")
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 name)
    list(GET pair 1 file)
    if(EXISTS ${file})
        configure_file(${file} ${CMAKE_BINARY_DIR}/licences/${name}.txt COPYONLY)
        list(APPEND package_licences ${CMAKE_BINARY_DIR}/licences/${name}.txt)
    endif()
endforeach()
add_custom_target(windows_zip
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${stage} ${stage}.zip
    COMMAND ${CMAKE_COMMAND} -E make_directory ${stage}/assets ${stage}/docs ${stage}/licences
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:pmfview> $<TARGET_FILE:pmfc> ${CMAKE_BINARY_DIR}/SDL2.dll ${stage}/
    COMMAND ${CMAKE_COMMAND} -E copy ${PMFVIEW_ASSET_DIR}/feature_demo.pmf ${PMFVIEW_ASSET_DIR}/lighting_demo.pmf
            ${PMFVIEW_ASSET_DIR}/materials_demo.pmf ${stage}/assets/
    COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/README.md ${stage}/
    COMMAND ${CMAKE_COMMAND} -E copy ${package_docs} ${stage}/docs/
    COMMAND ${CMAKE_COMMAND} -E copy ${package_licences} ${stage}/licences/
    COMMAND ${CMAKE_COMMAND} -E chdir ${CMAKE_BINARY_DIR} ${CMAKE_COMMAND} -E tar cf ${zip_name}.zip --format=zip ${zip_name}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${stage}
    DEPENDS pmfview pmfc demo_maps
    COMMENT "Packing ${zip_name}.zip"
    VERBATIM)
