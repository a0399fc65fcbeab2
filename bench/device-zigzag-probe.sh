#!/usr/bin/env bash
# Issue 29: why attention_cp's zigzag_ce (balanced) is slower than its own parts. Benches, at
# WORLD (default 4), zigzag over NCCL, zigzag_ce (wait_value), and zigzag_ce's parts taken apart:
# its attention alone reading K/V from the symmetric slots (part = compute, backend = ce), its
# moves alone (part = comm, backend = ce), zigzag_ce with spin waits, and with the order and piece
# knobs (zig_first, zig_pieces) changed; through bench/device-knob-probe.sh.
# Results: $OUT/attention_cp-probe.txt (the bench table) and .json (every rank's median).
# Usage (repo root on the GPU machine, .carry/ as in bench/one-gpu/README.md):
#   WORLD=4 bash bench/device-zigzag-probe.sh
#   WORLD=2 ENTRIES="zigzag_ce" PROBES="zz_ce_pieces4:strategy=zigzag,..." bash bench/device-zigzag-probe.sh
set -u
ZZ=strategy=zigzag,backend=ce
WV=$ZZ,wait_mode=wait_value
export WORKLOAD=attention_cp WORLD=${WORLD:-4}
export ENTRIES=${ENTRIES:-"zigzag zigzag_ce compute_alone"}
export PROBES=${PROBES:-"zz_ce_compute:part=compute,$WV zz_ce_comm:part=comm,$WV zz_ce_spin:$ZZ,wait_mode=spin
  zz_ce_held_first:$WV,zig_first=held zz_ce_pieces2:$WV,zig_pieces=2 zz_ce_pieces4:$WV,zig_pieces=4
  zz_ce_held_pieces4:$WV,zig_first=held,zig_pieces=4"}
exec bash "$(dirname "$0")/device-knob-probe.sh"
