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

# Flags for the few files whose every call is a crypto primitive (the guest AES-NI,
# PCLMULQDQ and SHA handlers): with the instructions enabled for the compiler, the compile-time
# tier inlines them into the handler. The run-time features word still decides which
# tier runs, so the build stays correct on a host without them.
set(X64EMU_HOST_CRYPTO_FLAGS "")
if(X64EMU_HOST_ARCH STREQUAL "x86_64")
  set(X64EMU_HOST_CRYPTO_FLAGS -maes -mpclmul -msha)
elseif(X64EMU_HOST_ARCH STREQUAL "aarch64")
  set(X64EMU_HOST_CRYPTO_FLAGS -march=armv8-a+crypto)
endif()

# For atomic.c's 16-byte compare-and-swap (the guest's CMPXCHG16B): x86-64's own
# instruction, which the baseline leaves out; aarch64's compiler calls libgcc's.
set(X64EMU_HOST_ATOMIC_FLAGS "")
if(X64EMU_HOST_ARCH STREQUAL "x86_64")
  set(X64EMU_HOST_ATOMIC_FLAGS -mcx16)
endif()

set(X64EMU_HOST_INCLUDE_DIRS
    ${CMAKE_CURRENT_LIST_DIR}/${X64EMU_HOST_ARCH} ${CMAKE_CURRENT_LIST_DIR}/generic)
list(REMOVE_DUPLICATES X64EMU_HOST_INCLUDE_DIRS)
file(GLOB X64EMU_HOST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.c)
