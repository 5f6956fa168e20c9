#!/bin/sh
# Builds, compiles and checks every zoo model (both forms, default-32x32 and
# edge-16x16, functional and cycle backends) and prints a table: bench/zoo.py.
# Then the performance table (cycles, bound, cycles / bound, MAC
# utilization, DRAM bytes, compile time; default and --tune; --no-perf
# skips it, --perf-only prints only it).
exec /usr/bin/python3 "$(dirname "$0")/zoo.py" "$@"
