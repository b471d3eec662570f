# aarch64-linux-gnu.cmake: a toolchain file for aarch64 Linux with Debian's
# gcc-aarch64-linux-gnu and arm64 multiarch libraries (libcmocka-dev:arm64); programs
# run on an x86-64 machine under qemu-aarch64 -L /usr/aarch64-linux-gnu (qemu-user).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
# Libraries of other architectures come from Debian's multiarch folders.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
