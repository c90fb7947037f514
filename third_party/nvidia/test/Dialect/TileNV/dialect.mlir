// RUN: kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The tile_nv dialect is registered with the NVIDIA backend: a module using only
// `tile` round-trips, and an op of tile_nv that does not exist is an error of
// the dialect (not "unregistered dialect").

// CHECK-LABEL: func.func @plain
func.func @plain(%p: !tile.ptr<f32>) {
  return
}

// -----

func.func @unknown() {
  // expected-error @+1 {{unregistered operation 'tile_nv.no_such_op' found in dialect ('tile_nv')}}
  "tile_nv.no_such_op"() : () -> ()
  return
}
