# The README's example program, compiled and run, so the README cannot drift
# from the API: the block between the readme-example markers is the program.
set(readme_path ${PROJECT_SOURCE_DIR}/README.md)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${readme_path})
file(READ ${readme_path} readme)
if(NOT readme MATCHES "<!-- readme-example: begin -->\n```cpp\n(.*)```\n<!-- readme-example: end -->")
  message(FATAL_ERROR "README.md: no example between the readme-example markers")
endif()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/readme_example.cc "${CMAKE_MATCH_1}")
add_executable(readme_example ${CMAKE_CURRENT_BINARY_DIR}/readme_example.cc)
target_link_libraries(readme_example PRIVATE ordo_engine)
# In a fresh directory: the example creates graph.ordo in its working directory.
add_test(NAME ReadmeExample
  COMMAND sh -c "rm -rf readme-example && mkdir readme-example && cd readme-example && \"$1\""
          sh $<TARGET_FILE:readme_example>
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(ReadmeExample PROPERTIES LABELS engine
  PASS_REGULAR_EXPRESSION "^[0-9a-f-]+ -> record\n$")

# The C API example, compiled as C11 with -pedantic -Werror and run the same way.
if(NOT readme MATCHES "<!-- readme-c-example: begin -->\n```c\n(.*)```\n<!-- readme-c-example: end -->")
  message(FATAL_ERROR "README.md: no C example between the readme-c-example markers")
endif()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/readme_c_example.c "${CMAKE_MATCH_1}")
enable_language(C)
add_executable(readme_c_example ${CMAKE_CURRENT_BINARY_DIR}/readme_c_example.c)
set_target_properties(readme_c_example PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(readme_c_example PRIVATE -Wall -Wextra -pedantic -Werror)
target_link_libraries(readme_c_example PRIVATE ordo_engine)
add_test(NAME ReadmeCExample
  COMMAND sh -c "rm -rf readme-c-example && mkdir readme-c-example && cd readme-c-example && \"$1\""
          sh $<TARGET_FILE:readme_c_example>
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(ReadmeCExample PROPERTIES LABELS engine)
