#!/usr/bin/env bash
# installed_examples.sh BUILD SOURCE: installs the build into a scratch prefix with cmake
# --install, then builds the library examples (examples/api) against that copy as a user
# would, with pkg-config and with find_package, and runs them and the Python ones. Each
# checks its results against FIPS-197 or the GCM specification itself.
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d /tmp/x64emu-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name x64emu.pc)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig
examples=$src/examples/api

echo "== pkg-config: $(pkg-config --cflags --libs x64emu)"
for name in aes128_step ghash; do
  cc -Wall -Wextra -Werror "$examples/$name.c" $(pkg-config --cflags --libs x64emu) \
     -Wl,-rpath,"$libdir" -o "$prefix/$name"
  "$prefix/$name"
done

echo "== only x64emu_* is public"
for lib in "$libdir/libx64emu.a" "$libdir/libx64emu.so"; do
  others=$(nm -g --defined-only $( [ "${lib##*.}" = so ] && echo -D) "$lib" | awk 'NF == 3 && $3 !~ /^x64emu_/ {print $3}')
  if [ -n "$others" ]; then echo "$lib defines $(echo $others | head -c 300)"; exit 1; fi
done

echo "== static: $(pkg-config --static --libs x64emu)"
cc "$examples/ghash.c" $(pkg-config --cflags x64emu) "$libdir/libx64emu.a" \
   $(pkg-config --static --libs-only-l x64emu | sed 's/-lx64emu//') -o "$prefix/ghash-static"
"$prefix/ghash-static"

echo "== find_package"
cmake -S "$examples" -B "$prefix/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cmake-build" >/dev/null
LD_LIBRARY_PATH=$libdir "$prefix/cmake-build/aes128_step" | tail -1
"$prefix/cmake-build/ghash_static" | tail -2

echo "== python"
for name in aes128_step ghash; do
  env -u X64EMU_LIBRARY PYTHONPATH="$libdir/python3/dist-packages" python3 "$examples/$name.py"
done
