# Run with cmake -P by CMakeLists.txt: links OBJECTS into one relocatable object OUT in
# which every global the objects define is renamed PREFIX<name>. They are a copy of the
# handlers and the instruction table compiled another way (access.h: X64EMU_WATCH_MEMORY
# for watched_, X64EMU_ORDERED for ordered_); renamed, they link beside the plain copy,
# and the decoder reaches them through watched_form_rows and ordered_form_rows (table.h).
foreach(var CC NM OBJCOPY OBJECTS OUT PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "rename_copy.cmake needs -D${var}=")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: ${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

run(${CC} -r -nostdlib -o ${OUT}.linked.o ${OBJECTS})
run(${NM} -g --defined-only ${OUT}.linked.o)
string(REGEX MATCHALL "[^\n]+" lines "${output}")
set(renames "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^.* " "" name "${line}")
  string(APPEND renames "${name} ${PREFIX}${name}\n")
endforeach()
file(WRITE ${OUT}.renames "${renames}")
run(${OBJCOPY} --redefine-syms=${OUT}.renames ${OUT}.linked.o ${OUT})
