# C++ tables generated at configure time from the project's data files, each kept in one place:
#   data/known-counts.tsv       the published counts (nq_known_rows);
#   bench/sampled-nodes.txt     the sampled costs of the default plans (nq_sampled_rows).
# A line that is meant to be a row (matches `select`) but is not of the row's form is a
# configure-time error naming the file and the line, never a row silently left out.
# Usable in script mode (cmake -P), which tests/unit/build/test_data_tables.py runs.

# Rows of a C++ table from the lines of `file` that match `select`: each must match `regex` and
# becomes `row`, in which \1, \2, ... are the regex's groups, into variable `var` for
# configure_file. `form` describes a row for the error message.
function(nq_table_rows var file select regex row form)
  if(NOT CMAKE_SCRIPT_MODE_FILE)   # a project: a change to the file configures again
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  endif()
  file(STRINGS "${file}" lines)
  set(rows "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "${select}")
      continue()
    endif()
    if(NOT line MATCHES "${regex}")
      message(FATAL_ERROR "${file}: the line\n  ${line}\nis not of the form\n  ${form}\n"
        "Correct the line or remove it.")
    endif()
    string(REGEX REPLACE "${regex}" "${row}" line "${line}")
    string(APPEND rows "    ${line},\n")
  endforeach()
  set(${var} "${rows}" PARENT_SCOPE)
endfunction()

# The published counts: every line that starts with a digit is a row.
function(nq_known_rows var file)
  nq_table_rows(rows "${file}" "^[0-9]"
    "^([0-9]+)\t([0-9]+)\t([0-9]+)\t([0-9]+)\t([0-9]+)$" "{\\1, \\2ULL, \\3ULL, \\4ULL, \\5ULL}"
    "N<tab>TOTAL<tab>UNIQUE<tab>ROT90_FIXED<tab>ROT180_FIXED, all whole numbers")
  set(${var} "${rows}" PARENT_SCOPE)
endfunction()

# The sampled costs of the default plans (bench/engines.sh writes them, bench/capacity.py reads
# them): every "estimate N vector" line is a row, and must read
#   estimate N vector CORE_SECONDS REL_SE UNITS TIMED DEPTH NODES NODES_REL_SE [SOLUTIONS SOLUTIONS_REL_SE [SYMMETRY]]
# of a full plan (no SYMMETRY, or full: nq_engines --symmetry), as bench/estimates.py requires.
function(nq_sampled_rows var file)
  nq_table_rows(rows "${file}" "^estimate [^ ]+ vector( |$)"
    "^estimate ([0-9]+) vector [^ ]+ [^ ]+ ([0-9]+) [0-9]+ ([0-9]+) ([0-9.e+]+) ([0-9.]+)( [^ ]+ [^ ]+)?( full)?$"
    "{\\1, \\3, \\2ULL, \\4, \\5}"
    "estimate N vector CORE_SECONDS REL_SE UNITS TIMED DEPTH NODES NODES_REL_SE [SOLUTIONS SOLUTIONS_REL_SE [full]], of a full plan (nq_engines --symmetry full)")
  set(${var} "${rows}" PARENT_SCOPE)
endfunction()
