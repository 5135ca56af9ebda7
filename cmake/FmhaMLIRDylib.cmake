# With libMLIR.so (FMHA_LINK_MLIR_DYLIB), every MLIR component library a
# project library names in add_mlir_library's LINK_LIBS (which links the
# static .a) is replaced by the MLIR dylib target, so that the tools, the
# API library and the mlir-opt plugin carry one copy of MLIR, libMLIR.so's,
# and no second static one.
function(fmha_link_mlir_dylib)
  get_property(targets DIRECTORY ${PROJECT_SOURCE_DIR}/lib PROPERTY BUILDSYSTEM_TARGETS)
  set(all)
  foreach(dir IN ITEMS Support Dialect/Fmha/IR Dialect/Fmha/Transforms Conversion/FmhaToHost
          Conversion/FmhaToGPU Conversion/OutlineKernel Conversion/LanesToHost Transforms
          Pipelines Request Target Compile)
    get_property(t DIRECTORY ${PROJECT_SOURCE_DIR}/lib/${dir} PROPERTY BUILDSYSTEM_TARGETS)
    list(APPEND all ${t})
  endforeach()
  foreach(t IN LISTS all)
    get_target_property(type ${t} TYPE)
    if(NOT type STREQUAL "STATIC_LIBRARY")
      continue()
    endif()
    foreach(prop LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libs ${t} ${prop})
      if(NOT libs)
        continue()
      endif()
      set(out)
      set(mlir FALSE)
      foreach(l IN LISTS libs)
        if(l MATCHES "^MLIR" AND NOT l MATCHES "^MLIRFmha" AND NOT l STREQUAL "MLIR"
           AND TARGET ${l})
          get_target_property(imported ${l} IMPORTED)
          if(imported)
            set(mlir TRUE)
            continue()
          endif()
        endif()
        list(APPEND out ${l})
      endforeach()
      if(mlir)
        list(APPEND out MLIR)
      endif()
      set_target_properties(${t} PROPERTIES ${prop} "${out}")
    endforeach()
  endforeach()
endfunction()
