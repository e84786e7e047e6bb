#!/usr/bin/env bash
# Copies binaries and the shared libraries they load (all but the C runtime's own) into one folder, so they run
# on a machine without our Debian packages (the lent GPU machine): run there with LD_LIBRARY_PATH=FOLDER.
# Usage: scripts/bundle_binary.sh FOLDER BINARY...   (also writes FOLDER.tar.xz, small enough to carry)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 FOLDER BINARY..." >&2; exit 2; }
folder=$1; shift
mkdir -p "$folder"
# glibc and the dynamic loader must come from the target machine, libcuda from its driver, and the CUDA
# toolkit's libraries (cuBLAS alone is ~700 MB) from its own toolkit.
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libcuda\.so|libcublas|libnvrtc|libcudart)'
# CWB_BUNDLE_LEAVE_OUT: an extended regex of more library names the target machine has (keeps a bundle small).
leave_out=${CWB_BUNDLE_LEAVE_OUT:-}
bundle_libraries_of() {
  ldd "$1" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    [[ $name =~ $skip ]] && continue
    [[ -n $leave_out && $name =~ ^($leave_out) ]] && continue
    cp -fL "$path" "$folder/$name"
  done
}
for binary in "$@"; do
  # Debug information is most of a RelWithDebInfo binary and is not needed to run it.
  strip -o "$folder/$(basename "$binary")" "$binary"
  bundle_libraries_of "$binary"
done
# Libraries cwb opens with dlopen (ldd does not list them), with theirs: oneDNN for CPU matrix products.
for name in libdnnl.so.2; do
  path=$({ ldconfig -p 2>/dev/null || /sbin/ldconfig -p; } | awk -v n="$name" '$1 == n && /x86-64/ {print $NF; exit}')
  [[ -z $path || ( -n $leave_out && $name =~ ^($leave_out) ) ]] && continue
  cp -fL "$path" "$folder/$name"
  bundle_libraries_of "$path"
done
tar -C "$(dirname "$folder")" -cJf "$folder.tar.xz" "$(basename "$folder")"
du -sh "$folder" "$folder.tar.xz"
