; A MATMUL reads the A tile (SP [0, 24)) the first LOAD brought, but a second
; LOAD rewrites it with no token between it and the MATMUL: on one schedule
; the MATMUL sees the first tile, on another the second. The functional
; backend reports the race (DataRace.h) whichever order it runs them in.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  load sram=sp elem_bytes=1 dram_addr=1024 n0=4 n1=6 n2=1 n3=1 s1=4 t1=4
  load push_next=1 sram=sp elem_bytes=1 sram_addr=64 n0=4 n1=4 n2=1 n3=1 s1=4 t1=4
  load sram=sp elem_bytes=1 dram_addr=2048 n0=4 n1=6 n2=1 n3=1 s1=4 t1=4
  matmul pop_prev=1 dataflow=ws preload=1 a_m_inner_stride=4 b_stride=4 a_m_inner=1000 a_k_inner=4 m=6 k=4 n=4 b_addr=64 c_stride=4
  end
