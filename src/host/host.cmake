# host.cmake: where the host crypto layer finds its host's tier. host_crypto.h includes
# "crypto_accel.h", found in src/host/<arch>/ before src/host/generic/ (include path
# order, so no #if ladder). Sets X64EMU_HOST_SOURCES and X64EMU_HOST_INCLUDE_DIRS.
set(_host_arch generic)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_host_arch x86_64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(_host_arch aarch64)
endif()
set(X64EMU_HOST_ARCH ${_host_arch} CACHE STRING
    "Folder of src/host/ with this host's crypto tier: x86_64, aarch64 or generic")
unset(_host_arch)
if(NOT EXISTS ${CMAKE_CURRENT_LIST_DIR}/${X64EMU_HOST_ARCH}/crypto_accel.h)
  message(FATAL_ERROR "X64EMU_HOST_ARCH=${X64EMU_HOST_ARCH}: no src/host/${X64EMU_HOST_ARCH}/crypto_accel.h")
endif()

set(X64EMU_HOST_INCLUDE_DIRS
    ${CMAKE_CURRENT_LIST_DIR}/${X64EMU_HOST_ARCH} ${CMAKE_CURRENT_LIST_DIR}/generic)
list(REMOVE_DUPLICATES X64EMU_HOST_INCLUDE_DIRS)
file(GLOB X64EMU_HOST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
