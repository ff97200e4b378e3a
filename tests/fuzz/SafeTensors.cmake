# libFuzzer target for the safetensors header parser (TpucLLM's SafeTensors.cpp, built again
# with coverage and sanitizers). Included from tests/fuzz/CMakeLists.txt after its libFuzzer
# check; reuses TpucSupportFuzz and TPUC_FUZZ_FLAGS from there. `ctest -L fuzz` runs it ~20 s.
add_library(TpucSafeTensorsFuzz STATIC ${PROJECT_SOURCE_DIR}/compiler/lib/LLM/SafeTensors.cpp)
target_include_directories(TpucSafeTensorsFuzz PUBLIC ${PROJECT_SOURCE_DIR}/compiler/include)
target_compile_options(TpucSafeTensorsFuzz PRIVATE ${TPUC_FUZZ_FLAGS})
target_link_libraries(TpucSafeTensorsFuzz
  PUBLIC TpucSupportFuzz LLVM
  PRIVATE nlohmann_json::nlohmann_json)

add_executable(safetensors-fuzzer SafeTensorsFuzzer.cpp)
target_compile_options(safetensors-fuzzer PRIVATE ${TPUC_FUZZ_FLAGS})
target_link_options(safetensors-fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(safetensors-fuzzer PRIVATE TpucSafeTensorsFuzz)

set(ST_SEEDS ${CMAKE_CURRENT_BINARY_DIR}/safetensors-seeds)
set(ST_WORK ${CMAKE_CURRENT_BINARY_DIR}/safetensors-corpus)
add_test(NAME fuzz-safetensors-seeds
  COMMAND sh -c "mkdir -p '${ST_SEEDS}' && /usr/bin/python3 \
'${PROJECT_SOURCE_DIR}/tests/unit/llm/Inputs/make_safetensors.py' '${ST_SEEDS}/numpy.safetensors'")
set_tests_properties(fuzz-safetensors-seeds PROPERTIES FIXTURES_SETUP safetensors-seeds LABELS fuzz)
add_test(NAME fuzz-safetensors
  COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
          sh -c "mkdir -p '${ST_WORK}' && exec '$<TARGET_FILE:safetensors-fuzzer>' -max_total_time=20 \
-rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 '${ST_WORK}' '${ST_SEEDS}'")
set_tests_properties(fuzz-safetensors PROPERTIES FIXTURES_REQUIRED safetensors-seeds LABELS fuzz
                     TIMEOUT 120)
