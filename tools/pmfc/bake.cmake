# The baker: lightmaps, dynamic-light layers, fast-light multipliers, probes and visibility.
# A static library of its own so that tests/tools/bake can link it without the front end.
add_library(pmfc_bake STATIC
    ${CMAKE_CURRENT_LIST_DIR}/bake.c
    ${CMAKE_CURRENT_LIST_DIR}/bake_sample.c
    ${CMAKE_CURRENT_LIST_DIR}/bake_bounce.c
    ${CMAKE_CURRENT_LIST_DIR}/vis.c)
target_include_directories(pmfc_bake PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(pmfc_bake PUBLIC raytrace pmf Threads::Threads m)
