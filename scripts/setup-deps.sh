#!/usr/bin/env bash
# Installs every Debian package nqueens needs (build, MPI, HDF5, tests, Slurm, analysis, the
# multihost tier's emulated hosts: ip from iproute2, nsenter/unshare from util-linux, and the
# install test's `module` command and offline `pip install`: environment-modules, python3-pip,
# python3-setuptools, python3-wheel).
# Idempotent and quick when everything is present: apt runs only for missing packages.
# Called by `scripts/run-demo`, `scripts/run-tests` and `.ci/run`; needs root (or sudo).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build clang git pkg-config
  openmpi-bin libopenmpi-dev
  libhdf5-dev hdf5-tools zlib1g-dev
  libboost-serialization-dev
  libgtest-dev libgmock-dev
  libcli11-dev libtomlplusplus-dev
  slurmctld slurmd slurm-client munge
  iproute2 util-linux hostname
  python3-h5py python3-numpy python3-matplotlib python3-pytest
  environment-modules python3-pip python3-setuptools python3-wheel
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "setup-deps: installing ${missing[*]}" >&2
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
