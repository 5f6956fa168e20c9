; A store whose DRAM footprint wraps around 2^64.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  store sram=sp elem_bytes=1 dram_addr=0xfffffffffffffff8 n0=16 n1=1 n2=1 n3=1
  end
