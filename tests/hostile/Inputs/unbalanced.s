; A compute fence pops a load->compute token nobody pushes.
.hw "tiny-4x4"
.dram_size 4096
.segment "main"
  fence queue=compute pop_prev=1
  end
