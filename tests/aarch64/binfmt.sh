#!/bin/bash
# binfmt.sh: a binfmt_misc handler for aarch64 programs, so that x64emu's aarch64 build
# under qemu-aarch64 can execve itself (its execve runs /proc/self/exe again) on this
# x86-64 machine.
#
#   binfmt.sh on QEMU STATE    registers QEMU for aarch64 ELF files unless a handler is
#                              there already (qemu-user-binfmt's), mounting binfmt_misc if
#                              it must; notes in the file STATE what it changed
#   binfmt.sh off STATE        undoes what `on` noted
#   binfmt.sh check            exit 0 if the kernel runs aarch64 programs through a
#                              handler, else prints why not and exits 77 (skipped)
#
# `on` always exits 0, saying what it did: a machine where it cannot (no root, no
# binfmt_misc) runs the tests that need it as skipped, each saying why.
set -u
dir=/proc/sys/fs/binfmt_misc
name=x64emu-test-aarch64
magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'

# Whether an enabled handler takes aarch64 ELF files (the magic as binfmt_misc prints it).
handled() {
  local f
  for f in "$dir"/*; do
    [ -f "$f" ] && [ "${f##*/}" != status ] && [ "${f##*/}" != register ] || continue
    grep -q '^enabled' "$f" && grep -q '^magic 7f454c460201010000000000000000000200b700' "$f" && return 0
  done
  return 1
}

case ${1:-} in
  on)
    qemu=$2 state=$3
    : >"$state"
    if [ ! -f "$dir/register" ]; then
      if [ "$(id -u)" != 0 ] || ! mount -t binfmt_misc binfmt_misc "$dir" 2>/dev/null; then
        echo "binfmt.sh: binfmt_misc is not mounted and cannot be (needs root): exec tests will be skipped"
        exit 0
      fi
      echo mounted >>"$state"
    fi
    if handled; then
      echo "binfmt.sh: the kernel already runs aarch64 programs through a handler"
      exit 0
    fi
    if ! echo ":$name:M::$magic:$mask:$qemu:" >"$dir/register" 2>/dev/null; then
      echo "binfmt.sh: cannot register a handler (needs root): exec tests will be skipped"
      exit 0
    fi
    echo registered >>"$state"
    echo "binfmt.sh: registered $qemu for aarch64 programs (binfmt.sh off undoes it)"
    ;;
  off)
    state=$2
    grep -qx registered "$state" 2>/dev/null && echo -1 >"$dir/$name"
    grep -qx mounted "$state" 2>/dev/null && umount "$dir"
    rm -f "$state"
    echo "binfmt.sh: as it was"
    ;;
  check)
    handled && exit 0
    echo "skipped: the kernel has no binfmt_misc handler for aarch64 programs (binfmt.sh on needs root)"
    exit 77
    ;;
  *) echo "usage: binfmt.sh on QEMU STATE | off STATE | check" >&2; exit 2 ;;
esac
