; Every directive: regions, per-axis quantized tensors, constants, an NPU
; segment with tokens in each FIFO, a host segment and layer info.
.producer "seed"
.hw "tiny-4x4"
.dram_size 2048
.region "weights" constants 0 512
.region "io" io 512 512
.region "act" activations 1024 1024
.tensor "x" input int8 [1,4] 512 4 scales=[0.5,0.25,1,2] zero_points=[0,1,-1,3] axis=1
.tensor "y" output int8 [1,4] 768 4 scales=[0.125] zero_points=[-3] axis=-1
.tensor "f" intermediate float32 [1,4] 1024 16
.const "w" 0 0100ff7f
.segment "main"
  load push_next=1 sram=sp elem_bytes=1 dram_addr=512 n0=4 n1=1 n2=1 n3=1
  fence queue=compute pop_prev=1 push_next=1
  store pop_prev=1 push_prev=1 sram=sp elem_bytes=1 dram_addr=768 n0=4 n1=1 n2=1 n3=1
  fence queue=compute pop_next=1 push_prev=1
  load pop_next=1 sram=sp elem_bytes=1 dram_addr=0 n0=4 n1=1 n2=1 n3=1
  end
.host "post" cpu_object "entry" [0,1] 7f454c46
.layer "l0" 0 0 6
