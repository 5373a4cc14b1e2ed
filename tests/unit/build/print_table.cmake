# cmake -DTABLE=known|sampled -DFILE=path -P print_table.cmake: prints the rows of the C++ table
# that cmake/DataTables.cmake makes of FILE (test_data_tables.py).
include("${CMAKE_CURRENT_LIST_DIR}/../../../cmake/DataTables.cmake")
cmake_language(CALL nq_${TABLE}_rows rows "${FILE}")
message("${rows}")
