# pmfview_fuzz_target(): one libFuzzer target, its seed corpus and its replay test.
#
#   pmfview_fuzz_target(NAME fuzz_x
#       SOURCES fuzz_x.c                 # defines LLVMFuzzerTestOneInput (and optionally
#                                        # LLVMFuzzerInitialize)
#       LIBRARIES lib...                 # what it links; instrumented in the fuzz build
#       SEEDS seeder [ARG...]            # an executable target and its arguments: it writes
#                                        # the seed files into the directory appended last
#       [INCLUDES dir...]
#       [MAX_LEN bytes])                 # -max_len for scripts/fuzz.sh (default 16384)
#
# Always (every build, so CI replays it, also under ASan + UBSan):
#   - NAME_replay: the target's sources with replay_main.c, which feeds it every file of the
#     directories it is given (no fuzzing);
#   - test fuzz_seeds_NAME: runs the seeder into <build>/tests/fuzz/seeds/NAME (fixture);
#   - test fuzz_replay_NAME: NAME_replay over those seeds.
# With -DPMFVIEW_FUZZ=ON and clang: the libFuzzer executable NAME, and <build>/fuzz/NAME.env
# which tells scripts/fuzz.sh how to write its seeds and its -max_len.
set(PMFVIEW_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})

function(pmfview_fuzz_target)
    cmake_parse_arguments(FT "" "NAME;MAX_LEN" "SOURCES;LIBRARIES;SEEDS;INCLUDES" ${ARGN})
    if(NOT FT_NAME OR NOT FT_SOURCES OR NOT FT_SEEDS)
        message(FATAL_ERROR "pmfview_fuzz_target: NAME, SOURCES and SEEDS are required")
    endif()
    if(NOT FT_MAX_LEN)
        set(FT_MAX_LEN 16384)
    endif()
    list(GET FT_SEEDS 0 seeder)
    set(seed_args "")
    list(LENGTH FT_SEEDS seeds_length)
    if(seeds_length GREATER 1)
        list(SUBLIST FT_SEEDS 1 -1 seed_args)
    endif()
    set(seed_dir ${PROJECT_BINARY_DIR}/tests/fuzz/seeds/${FT_NAME})

    add_executable(${FT_NAME}_replay ${FT_SOURCES} ${PMFVIEW_FUZZ_DIR}/replay_main.c)
    target_include_directories(${FT_NAME}_replay PRIVATE ${FT_INCLUDES})
    target_link_libraries(${FT_NAME}_replay PRIVATE ${FT_LIBRARIES})
    add_test(NAME fuzz_seeds_${FT_NAME}
             COMMAND ${CMAKE_COMMAND} -DDIR=${seed_dir} -P ${PMFVIEW_FUZZ_DIR}/run_seeder.cmake
                     ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:${seeder}> ${seed_args})
    set_tests_properties(fuzz_seeds_${FT_NAME} PROPERTIES FIXTURES_SETUP fuzz_seeds_${FT_NAME})
    add_test(NAME fuzz_replay_${FT_NAME} COMMAND ${FT_NAME}_replay ${seed_dir})
    set_tests_properties(fuzz_replay_${FT_NAME} PROPERTIES FIXTURES_REQUIRED fuzz_seeds_${FT_NAME})

    if(PMFVIEW_FUZZ)
        set(instrument -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
        foreach(lib ${FT_LIBRARIES})
            if(TARGET ${lib})
                get_target_property(type ${lib} TYPE)
                get_target_property(done ${lib} PMFVIEW_FUZZ_INSTRUMENTED)
                if(type STREQUAL "STATIC_LIBRARY" AND NOT done)
                    target_compile_options(${lib} PRIVATE ${instrument})
                    set_target_properties(${lib} PROPERTIES PMFVIEW_FUZZ_INSTRUMENTED ON)
                endif()
            endif()
        endforeach()
        foreach(exe ${FT_NAME}_replay ${seeder})
            get_target_property(done ${exe} PMFVIEW_FUZZ_INSTRUMENTED)
            if(NOT done)
                target_link_options(${exe} PRIVATE -fsanitize=address,undefined)
                set_target_properties(${exe} PROPERTIES PMFVIEW_FUZZ_INSTRUMENTED ON)
            endif()
        endforeach()
        add_executable(${FT_NAME} ${FT_SOURCES})
        target_include_directories(${FT_NAME} PRIVATE ${FT_INCLUDES})
        target_compile_options(${FT_NAME} PRIVATE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)
        target_link_options(${FT_NAME} PRIVATE -fsanitize=fuzzer,address,undefined)
        target_link_libraries(${FT_NAME} PRIVATE ${FT_LIBRARIES})
        add_dependencies(${FT_NAME} ${seeder})
        string(REPLACE ";" " " seed_args_text "${seed_args}")
        file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/fuzz/${FT_NAME}.env
             CONTENT "FUZZER='$<TARGET_FILE:${FT_NAME}>'\nSEEDER='$<TARGET_FILE:${seeder}>'\nSEED_ARGS='${seed_args_text}'\nMAX_LEN=${FT_MAX_LEN}\n")
    endif()
endfunction()
