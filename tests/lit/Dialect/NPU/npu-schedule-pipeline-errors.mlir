// RUN: systole-opt %s --split-input-file --verify-diagnostics
// What npu-schedule-pipeline's input must be: the verifiers of npu.layer and
// npu.item, one case per diagnostic.

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      npu.item loads {
      } computes {
        // expected-error @+1 {{'npu.load' op does not belong in an item's computes}}
        npu.load {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } stores {
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      npu.item loads {
        // expected-error @+1 {{'npu.load' op carries dependency tokens inside an npu.item: npu-schedule-pipeline adds them}}
        %t = npu.load push_next {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op computes nothing: every item computes}}
      npu.item loads {
      } computes {
      } stores {
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op load_need has 2 entries for 1 loads}}
      npu.item {load_need = array<i64: 0, 0>} loads {
        npu.load {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op load_need entry 1 names no compute (the item has 1)}}
      npu.item {load_need = array<i64: 1>} loads {
        npu.load {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op tail_load 1 names no load (the item has 1)}}
      npu.item {tail_load = 1 : i64} loads {
        npu.load {sram = sp, elem_bytes = 1, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op keeps its output tile on chip but stores it too}}
      npu.item keep loads {
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op is the layer's last item but neither stores nor keeps its output tile}}
      npu.item loads {
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      // expected-error @+1 {{'npu.item' op keeps its tile where the layer's last item does not (or the reverse)}}
      npu.item keep loads {
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
      }
      npu.item loads {
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      npu.item loads {
        // expected-error @+1 {{'npu.load' op load: operand dst touches SP [0x3ffc, 0x400c) beyond its capacity 0x4000 bytes}}
        npu.load {sram = sp, elem_bytes = 1, sram_addr = 16380, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    npu.layer "l" {
      npu.item loads {
      } computes {
        npu.requant {zp = 0, lo = -128, hi = 127, c_stride = 4, o_addr = 12288, o_stride = 4, m = 4, n = 4}
      } stores {
        npu.store {sram = sp, elem_bytes = 1, sram_addr = 12288, dram_addr = 1024, n0 = 16, n1 = 1, n2 = 1, n3 = 1}
      }
    }
    // expected-error @+1 {{'npu.end' op beside npu.layer ops: a segment holds either layers (before npu-schedule-pipeline) or an instruction stream}}
    npu.end
  }
}

// -----

npu.program "tiny-4x4" {
  npu.segment 0 "npu0" {
    // expected-error @+1 {{'npu.layer' op has no items}}
    npu.layer "l" {
    }
  }
}
