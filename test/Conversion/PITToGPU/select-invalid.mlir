// A choice made on the device can only guard kernels: a variant with other
// host work is an error on the select, not a wrong result.
// RUN: pit-opt %s -split-input-file --convert-pit-to-gpu -verify-diagnostics

func.func private @log_variant()

func.func @host_call_in_a_variant(%counts: memref<8xi32>) {
  // expected-error @below {{'pit.select' op cannot choose on the device: a variant runs 'func.call' on the host, which would run whatever the choice}}
  %variant = pit.select %counts capacities [64] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>] dense 100.0 : memref<8xi32>
  scf.index_switch %variant
  case 0 {
    func.call @log_variant() : () -> ()
    scf.yield
  }
  default {
  }
  return
}

// -----

func.func @choice_used_elsewhere(%counts: memref<8xi32>) -> index {
  // expected-error @below {{'pit.select' op can only choose on the device for scf.index_switch ops without results that follow it in its block; used by func.return}}
  %variant = pit.select %counts capacities [64] coverage [0.0, 1.0]
      latencies [array<f64: 1.0, 200.0>] dense 100.0 : memref<8xi32>
  return %variant : index
}
