#!/usr/bin/env bash
# carry_criterion.sh — packs this machine's Criterion (headers, libcriterion.so.3 and the shared
# libraries it pulls in that a CUDA image may lack) into .deps/ with a relocated criterion.pc, so a
# GPU machine without Criterion can build and run the suites: tools/gpu_session.sh puts
# .deps/lib/pkgconfig on PKG_CONFIG_PATH and .deps/lib on LD_LIBRARY_PATH. Carry `.deps` with the
# device call (.git/info/exclude keeps it out of git). Needs libcriterion-dev installed here.
# libseccomp too, when libseccomp-dev is installed here (headers, libseccomp.a, which CMake links
# in preference so the harness binary needs nothing at run time, the .so, a relocated
# libseccomp.pc): the GPU machine's build then has the solution's seccomp filter.
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
if [ -f "$lib/pkgconfig/libseccomp.pc" ]; then
    cp /usr/include/seccomp.h .deps/include/
    [ -f /usr/include/seccomp-syscalls.h ] && cp /usr/include/seccomp-syscalls.h .deps/include/
    cp -P "$lib"/libseccomp.so* .deps/lib/
    [ -f "$lib/libseccomp.a" ] && cp "$lib/libseccomp.a" .deps/lib/
    cat > .deps/lib/pkgconfig/libseccomp.pc <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib
Name: libseccomp
Description: libseccomp, carried for the GPU machine
Version: $(pkg-config --modversion libseccomp)
Libs: -L\${libdir} -lseccomp
Cflags: -I\${includedir}
PC
else
    echo "carry_criterion.sh: libseccomp-dev is not installed here: the GPU build will have no seccomp filter" >&2
fi
grep -qx '/.deps/' .git/info/exclude 2>/dev/null || echo '/.deps/' >> .git/info/exclude
du -sh .deps
