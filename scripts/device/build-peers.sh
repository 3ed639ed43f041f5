#!/usr/bin/env bash
# Builds the peers, from their public sources, on the device machine:
#
#   scripts/device/build-peers.sh              # BabelStream (CUDA model, sm_90)
#   scripts/device/build-peers.sh nccl         # nccl-tests (against PyTorch's NCCL) and nvbandwidth
#   scripts/device/build-peers.sh all          # all three
#
# The sources are never committed: the lead exports them into .peers/ (git
# ignored) and carries that folder to the device:
#   .peers/BabelStream, .peers/nccl-tests, .peers/nvbandwidth  (git archive of each)
#   .peers/debs/*.deb   Debian's Boost.program_options packages (nvbandwidth needs
#                       them; the device has no Boost and no network)
# Builds go to $BUILD (default /tmp/peers-build), never into the repository.
# The Debian packages are unpacked into a private prefix, $BUILD/boost, with
# dpkg -x (or ar + tar), never into /.
#
# Last lines printed, one per peer: "built NAME PATH" or "FAILED NAME (log: PATH)".
# Exit status: 0 when everything asked for was built, 1 otherwise.
#
# How to run the multi-GPU peers afterwards (two GPUs, one host; NVLink
# multicast stays off):
#   export NCCL_NVLS_ENABLE=0 LD_LIBRARY_PATH=$(cat $BUILD/nccl-libdir):$LD_LIBRARY_PATH
#   $BUILD/nccl-tests/all_reduce_perf     -b 8M -e 8G -f 2 -g 2
#   $BUILD/nccl-tests/all_gather_perf     -b 8M -e 8G -f 2 -g 2
#   $BUILD/nccl-tests/reduce_scatter_perf -b 8M -e 8G -f 2 -g 2
#   $BUILD/nvbandwidth/nvbandwidth -t device_to_device_memcpy_read_ce device_to_device_memcpy_write_ce \
#       device_to_device_bidirectional_memcpy_read_ce device_to_device_memcpy_read_sm \
#       device_to_device_memcpy_write_sm device_to_device_bidirectional_memcpy_read_sm \
#       host_to_device_memcpy_ce device_to_host_memcpy_ce
# (scripts/device/multi-gpu-peers.sh does all of it in one call.)
set -u
PEERS=${PEERS:-$PWD/.peers}
BUILD=${BUILD:-/tmp/peers-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 8)}
ARCH=${ARCH:-90}
what=${1:-babelstream}
mkdir -p "$BUILD"

# nvcc and the toolkit root: $CUDA_HOME, then nvcc on PATH, then /usr/local/cuda.
NVCC=$(command -v nvcc || true)
if [[ -n ${CUDA_HOME:-} && -x $CUDA_HOME/bin/nvcc ]]; then NVCC=$CUDA_HOME/bin/nvcc; fi
[[ -z $NVCC && -x /usr/local/cuda/bin/nvcc ]] && NVCC=/usr/local/cuda/bin/nvcc
if [[ -z $NVCC ]]; then echo "build-peers: nvcc not found (set CUDA_HOME)" >&2; exit 1; fi
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$NVCC")")")}
# Link-time stubs (libnvidia-ml.so, libcuda.so): their SONAME is the driver's
# libX.so.1, so the programs load the real driver libraries at run time.
STUBS=""
for d in "$CUDA_HOME/lib64/stubs" "$CUDA_HOME/targets/x86_64-linux/lib/stubs" "$CUDA_HOME/lib/stubs"; do
  [[ -d $d ]] && { STUBS=$d; break; }
done
LINK_STUBS=${STUBS:+-L$STUBS}
GEN=()
command -v ninja > /dev/null && GEN=(-G Ninja)
echo "build-peers: nvcc $NVCC, CUDA_HOME $CUDA_HOME, stubs ${STUBS:-none}, jobs $JOBS, sm_$ARCH"

status=0
result() { # name, rc, binary, log
  if [[ $2 -eq 0 && -x $3 ]]; then RESULTS+=("built $1 $3"); else RESULTS+=("FAILED $1 (log: $4)"); status=1; fi
}
RESULTS=()

build_babelstream() {
  local src=$PEERS/BabelStream b=$BUILD/babelstream log=$BUILD/babelstream.log
  [[ -f $src/CMakeLists.txt ]] || { echo "no BabelStream source in $src" > "$log"; result babelstream 1 "" "$log"; return; }
  (
    cmake -S "$src" -B "$b" "${GEN[@]}" -DMODEL=cuda -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$NVCC" -DCUDA_ARCH="sm_$ARCH" \
      -DCXX_EXTRA_LINK_FLAGS="$LINK_STUBS" &&
      cmake --build "$b" -j "$JOBS"
  ) > "$log" 2>&1
  local rc=$? exe=$b/babelstream
  [[ -x $exe ]] || exe=$b/cuda-stream # older BabelStream names it by model
  result babelstream $rc "$exe" "$log"
}

# Boost.program_options from Debian's packages, into $BUILD/boost.
unpack_boost() {
  local prefix=$BUILD/boost
  [[ -f $prefix/usr/include/boost/program_options.hpp ]] && { echo "$prefix"; return 0; }
  mkdir -p "$prefix"
  local deb
  for deb in "$PEERS"/debs/*.deb; do
    [[ -f $deb ]] || { echo "no .deb files in $PEERS/debs" >&2; return 1; }
    if command -v dpkg-deb > /dev/null; then
      dpkg-deb -x "$deb" "$prefix" || return 1
    else # a .deb is an ar archive holding data.tar.*
      local t; t=$(mktemp -d)
      (cd "$t" && ar x "$deb" && tar -xf data.tar.* -C "$prefix") || { rm -rf "$t"; return 1; }
      rm -rf "$t"
    fi
  done
  echo "$prefix"
}

build_nvbandwidth() {
  local src=$PEERS/nvbandwidth b=$BUILD/nvbandwidth log=$BUILD/nvbandwidth.log prefix
  [[ -f $src/CMakeLists.txt ]] || { echo "no nvbandwidth source in $src" > "$log"; result nvbandwidth 1 "" "$log"; return; }
  (
    prefix=$(unpack_boost) || exit 1
    local bdir
    bdir=$(dirname "$(find "$prefix" -name BoostConfig.cmake | head -1)")
    echo "Boost from $prefix ($bdir)"
    # (GIT_CEILING_DIRECTORIES: its version string must not come from an enclosing repository)
    GIT_CEILING_DIRECTORIES=$PEERS cmake -S "$src" -B "$b" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
      -DCMAKE_PREFIX_PATH="$prefix/usr" -DBoost_DIR="$bdir" -DBOOST_ROOT="$prefix/usr" \
      -DBoost_NO_SYSTEM_PATHS=ON -DCMAKE_EXE_LINKER_FLAGS="$LINK_STUBS" &&
      cmake --build "$b" -j "$JOBS"
  ) > "$log" 2>&1
  result nvbandwidth $? "$b/nvbandwidth" "$log"
}

# The NCCL that PyTorch ships (pip's nvidia/nccl: include/nccl.h, lib/libnccl.so.2),
# or $NCCL_HOME when given. nccl-tests links -lnccl, so a private NCCL_HOME with a
# libnccl.so link is made under $BUILD.
find_nccl() {
  if [[ -n ${NCCL_HOME:-} && -f $NCCL_HOME/include/nccl.h ]]; then
    echo "$NCCL_HOME"
    return 0
  fi
  local roots d
  roots=$(python3 -c 'import site, sys; print("\n".join(site.getsitepackages() + [site.getusersitepackages()] + sys.path))' 2>/dev/null)
  while read -r d; do
    [[ -n $d && -f $d/nvidia/nccl/include/nccl.h ]] && { echo "$d/nvidia/nccl"; return 0; }
  done <<< "$roots"
  d=$(find / -xdev -name nccl.h -path '*nvidia/nccl/include*' 2>/dev/null | head -1)
  [[ -n $d ]] && { dirname "$(dirname "$d")"; return 0; }
  return 1
}

build_nccl_tests() {
  local src=$PEERS/nccl-tests b=$BUILD/nccl-tests log=$BUILD/nccl-tests.log nccl home=$BUILD/nccl-home
  [[ -f $src/Makefile ]] || { echo "no nccl-tests source in $src" > "$log"; result nccl-tests 1 "" "$log"; return; }
  (
    nccl=$(find_nccl) || { echo "NCCL headers not found (pip nvidia/nccl or NCCL_HOME)"; exit 1; }
    local lib
    lib=$(find "$nccl/lib" -maxdepth 1 -name 'libnccl.so*' 2>/dev/null | sort | head -1)
    [[ -n $lib ]] || { echo "no libnccl.so* in $nccl/lib"; exit 1; }
    rm -rf "$home" && mkdir -p "$home/lib"
    ln -s "$nccl/include" "$home/include"
    ln -s "$lib" "$home/lib/libnccl.so"
    dirname "$lib" > "$BUILD/nccl-libdir"
    echo "NCCL from $nccl ($(grep -m1 -E '#define NCCL_(VERSION_CODE|MAJOR)' "$nccl/include/nccl.h"))"
    make -C "$src" -j "$JOBS" BUILDDIR="$b" NCCL_HOME="$home" CUDA_HOME="$CUDA_HOME" MPI=0 CUDARTLIB=cudart_static \
      NVCC_GENCODE="-gencode=arch=compute_$ARCH,code=sm_$ARCH"
  ) > "$log" 2>&1
  result nccl-tests $? "$b/all_reduce_perf" "$log"
}

case $what in
  babelstream) build_babelstream ;;
  nccl) build_nccl_tests; build_nvbandwidth ;;
  all) build_babelstream; build_nccl_tests; build_nvbandwidth ;;
  *) echo "usage: $0 [babelstream|nccl|all]" >&2; exit 2 ;;
esac
for line in "${RESULTS[@]}"; do
  echo "$line"
  if [[ $line == FAILED* ]]; then
    log=${line#*log: }
    log=${log%)}
    tail -25 "$log" | sed 's/^/  | /'
  fi
done
exit $status
