# The installed package from a user's side (tests/consumer/consumer_test.sh), label
# `install`: install.prefix runs `cmake --install` of this build into a scratch
# prefix, the others use it. Normal builds only: a sanitizer build's libraries
# need the sanitizer runtime in every program that links them.
set(ordo_install_dir ${CMAKE_CURRENT_BINARY_DIR}/install-test)
set(ordo_consumer_script ${CMAKE_CURRENT_SOURCE_DIR}/consumer/consumer_test.sh)

add_test(NAME install.prefix
  COMMAND ${ordo_consumer_script} install ${PROJECT_BINARY_DIR} ${ordo_install_dir}/prefix)
set_tests_properties(install.prefix PROPERTIES FIXTURES_SETUP ordo_install LABELS install TIMEOUT 120)

# ordo_consumer_test(STEP): consumer_test.sh STEP against the installed prefix.
function(ordo_consumer_test step)
  add_test(NAME install.${step}
    COMMAND ${ordo_consumer_script} ${step} ${ordo_install_dir}/prefix ${ordo_install_dir}/${step})
  set_tests_properties(install.${step} PROPERTIES
    FIXTURES_REQUIRED ordo_install LABELS install TIMEOUT 120
    ENVIRONMENT "CXX=${CMAKE_CXX_COMPILER};ORDO_CONSUMER_GENERATOR=${CMAKE_GENERATOR}")
endfunction()

ordo_consumer_test(symbols)
ordo_consumer_test(cxx_shared)
ordo_consumer_test(cxx_static)
ordo_consumer_test(pkgconfig)
ordo_consumer_test(c)
ordo_consumer_test(python)
