; A load reading 16 bytes at DRAM address 4090 of a 4096-byte image.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  load sram=sp elem_bytes=1 dram_addr=4090 n0=16 n1=1 n2=1 n3=1
  end
