#!/usr/bin/env bash
# carry_criterion.sh — packs this machine's Criterion (headers, libcriterion.so.3 and the shared
# libraries it pulls in that a CUDA image may lack) into .deps/ with a relocated criterion.pc, so a
# GPU machine without Criterion can build and run the suites: tools/gpu_session.sh puts
# .deps/lib/pkgconfig on PKG_CONFIG_PATH and .deps/lib on LD_LIBRARY_PATH. Carry `.deps` with the
# device call (.git/info/exclude keeps it out of git). Needs libcriterion-dev installed here.
set -euo pipefail
cd "$(dirname "$0")/.."
lib=/usr/lib/x86_64-linux-gnu
[ -f "$lib/pkgconfig/criterion.pc" ] || { echo "carry_criterion.sh: libcriterion-dev is not installed here" >&2; exit 1; }
rm -rf .deps && mkdir -p .deps/include .deps/lib/pkgconfig
cp -r /usr/include/criterion .deps/include/
cp -P "$lib"/libcriterion.so* .deps/lib/
# the non-glibc libraries libcriterion.so.3 needs (ldd names them), followed through their links
ldd "$lib/libcriterion.so.3" | awk '/=> \// {print $3}' | grep -vE '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' |
    while read -r so; do cp -L "$so" .deps/lib/; done
cat > .deps/lib/pkgconfig/criterion.pc <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib
Name: criterion
Description: Criterion, carried for the GPU machine
Version: $(pkg-config --modversion criterion)
Libs: -L\${libdir} -lcriterion
Cflags: -I\${includedir}
PC
grep -qx '/.deps/' .git/info/exclude 2>/dev/null || echo '/.deps/' >> .git/info/exclude
du -sh .deps
