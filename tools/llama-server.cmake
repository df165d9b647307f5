# Included into llama.cpp's build by tools/llama-server.sh (CMAKE_PROJECT_llama.cpp_INCLUDE).
# The build is a unity build (several sources compiled as one unit). Two libraries refuse it,
# and are built file by file: llama-common (json.cpp specializes templates its other sources
# instantiate first) and mtmd (its helper must not see the internal headers the others use).
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}"
  CALL set_target_properties llama-common mtmd PROPERTIES UNITY_BUILD OFF)
