# Wraps markdown files into one C++ raw string literal (fmha-opt --help).
# -DOUT=<file.inc> -DINPUTS=<a.md|b.md|...>
string(REPLACE "|" ";" inputs "${INPUTS}")
set(text "")
foreach(f ${inputs})
  file(READ "${f}" part)
  string(APPEND text "${part}\n")
endforeach()
file(WRITE "${OUT}.tmp" "R\"FMHADOC(${text})FMHADOC\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
