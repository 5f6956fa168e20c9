; A load into scratchpad bytes past the end of the scratchpad.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  load sram=sp elem_bytes=1 sram_addr=0xfffffff0 dram_addr=0 n0=16 n1=1 n2=1 n3=1
  end
