#!/usr/bin/env bash
# Fills .carry/ (git-ignored) with what the device scripts need on a GPU machine, built here:
#   .carry/cuco, .carry/cuco-sandbox-exec   this tree's binaries (scripts/build.sh first)
#   .carry/lib/                             the shared libraries cuco needs that the GPU machines lack
#                                           (libcurl and its dependencies, cpp-httplib): never glibc,
#                                           libstdc++, libgcc_s, OpenSSL, zlib or SQLite, which they have
#                                           (shared/notes/gpu-machines.md: Debian's libstdc++ breaks there)
#   .carry/bin/bwrap                        Debian 12's bubblewrap (the sandbox; not installed there)
#   .carry/cudnn-fe/include                 the cuDNN frontend headers (attention_cp's cuDNN attention)
#   .carry.tgz                              all of .carry/ in one archive: what travels (`carry: [".carry.tgz"]`,
#                                           the command starting `tar xzf .carry.tgz && ...`). The tree and
#                                           the carried paths share a 64 MiB limit that the tracked files
#                                           (about 40 MiB) and .carry/ unpacked (about 23 MiB) outgrew;
#                                           packed, .carry/ is about 8 MiB.
# Usage: bash bench/make-carry.sh     (prints the size of what will travel)
set -euo pipefail
cd "$(dirname "$0")/.."
C=.carry
rm -rf "$C/lib" "$C/bin" "$C/cudnn-fe"
mkdir -p "$C/lib" "$C/bin"
cp build/src/cli/cuco "$C/cuco"
cp build/src/launch/cuco-sandbox-exec "$C/cuco-sandbox-exec"
strip "$C/cuco" "$C/cuco-sandbox-exec" 2>/dev/null || true
cp "$(command -v bwrap)" "$C/bin/bwrap"
ldd "$C/cuco" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
  case $name in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|ld-linux*|libresolv*|libpthread*|libdl*|librt.so*) continue ;;
    libssl.so*|libcrypto.so*|libz.so*|libsqlite3*) continue ;;
  esac
  cp -L "$path" "$C/lib/$name"
done
# The frontend headers cuco doctor found (the nvidia-cudnn-frontend wheel puts them in site-packages/include).
FE=$(build/src/cli/cuco doctor 2>/dev/null | sed -n 's/.*frontend [0-9.]* at \(.*\)$/\1/p' | head -1)
if [ -n "$FE" ] && [ -f "$FE/cudnn_frontend.h" ]; then
  mkdir -p "$C/cudnn-fe" && cp -r "$FE" "$C/cudnn-fe/include"
fi
tar czf .carry.tgz "$C"
du -sh "$C" .carry.tgz
