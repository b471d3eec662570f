#!/usr/bin/env bash
# -L DIR (and X64EMU_LD_PREFIX, QEMU_LD_PREFIX): absolute paths but "/" itself are looked
# up under DIR first. A program whose loader exists only in the sysroot runs with it and
# is refused without it, with a message naming the option; a file only in the sysroot is
# read through it, and one only on the host still from the host.
# Usage: sysroot.sh X64EMU HELLO_C WORK_DIR
set -euo pipefail
emu=$1 hello_c=$2 work=$3
root=$work/sysroot
rm -rf "$root" && mkdir -p "$root/x64emu-test" "$root/etc"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/x64emu-test/ld.so"
echo "read from the sysroot" > "$root/etc/x64emu-marker"
gcc -O2 -Wl,--dynamic-linker=/x64emu-test/ld.so -o "$work/hello_sysroot" "$hello_c"

fail() { echo "sysroot.sh: $*"; exit 1; }
expected=$(/lib64/ld-linux-x86-64.so.2 "$work/hello_sysroot")
[ "$("$emu" -L "$root" "$work/hello_sysroot")" = "$expected" ] || fail "-L: the loader in the sysroot did not run the program"
[ "$(X64EMU_LD_PREFIX=$root "$emu" "$work/hello_sysroot")" = "$expected" ] || fail "X64EMU_LD_PREFIX did not"
[ "$(QEMU_LD_PREFIX=$root "$emu" "$work/hello_sysroot")" = "$expected" ] || fail "QEMU_LD_PREFIX did not"
if out=$("$emu" "$work/hello_sysroot" 2>&1); then fail "ran without the sysroot"; fi
grep -q "its dynamic loader.*/x64emu-test/ld.so.*-L DIR" <<<"$out" || fail "no message naming -L: $out"
[ "$("$emu" -L "$root" /bin/cat /etc/x64emu-marker)" = "read from the sysroot" ] || fail "a file in the sysroot"
[ "$("$emu" -L "$root" /bin/cat /etc/hostname)" = "$(cat /etc/hostname)" ] || fail "a file on the host"
# The root is the host's, as ".." from the top of the tree reaches it.
[ "$("$emu" -L "$root" /bin/ls -id /)" = "$(ls -id /)" ] || fail "/ named the sysroot"
# A child the guest starts (dash, then cat) keeps the sysroot.
[ "$("$emu" -L "$root" /bin/sh -c 'cat /etc/x64emu-marker')" = "read from the sysroot" ] || fail "execve lost it"
echo "sysroot: the loader and files under -L, the host's elsewhere, across execve"
