#!/bin/sh
# Runs a test program on an emulated CPU (qemu-x86_64, user mode) that reports itself as a
# 5th-generation Intel Xeon (family 6, model 207): a CPU OpenBLAS 0.3.21 does not know
# (tests/kernels/unknown_cpu_test.cpp). QEMU's TCG has no AVX-512, so the program must be built
# for at most AVX2. Exit 77 (CTest: skipped) where qemu-x86_64 is missing
# (scripts/install_deps.sh installs it: Debian's qemu-user).
command -v qemu-x86_64 >/dev/null 2>&1 || {
  echo "run_emulated: qemu-x86_64 not found (apt-get install qemu-user): skipped"
  exit 77
}
exec qemu-x86_64 -cpu max,vendor=GenuineIntel,family=6,model=207,stepping=2 "$@"
