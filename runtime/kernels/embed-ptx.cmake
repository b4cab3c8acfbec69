# cmake -DINPUT=kernels.ptx -DOUTPUT=kernels.inc -P embed-ptx.cmake
# Writes the PTX as a C++ raw string literal for the runtime to load.
file(READ "${INPUT}" ptx)
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT} by embed-ptx.cmake.\n"
  "static const char kGraphKernelsPtx[] = R\"sezmptx(${ptx})sezmptx\";\n")
